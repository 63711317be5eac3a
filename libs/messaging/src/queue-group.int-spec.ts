import { Controller, Inject, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { bootstrapService } from './service-bootstrap.js';

const REPLICA = Symbol('REPLICA');
const handled: Record<string, number> = {};

@Controller()
class ReplicaController {
  constructor(@Inject(REPLICA) private readonly replica: string) {}

  @MessagePattern('replicas.who')
  who(): string {
    handled[this.replica] = (handled[this.replica] ?? 0) + 1;
    return this.replica;
  }
}

@Module({})
class ReplicaModule {
  static named(replica: string): DynamicModule {
    return {
      module: ReplicaModule,
      imports: [LoggerModule.forRoot(loggerParams('replica', 'silent'))],
      controllers: [ReplicaController],
      providers: [{ provide: REPLICA, useValue: replica }],
    };
  }
}

/** Replicas of one service join one queue group: each request is handled once, and both share the load. */
describe('service replicas in a queue group', () => {
  const replicas: INestMicroservice[] = [];
  let nats: ResilientNatsConnection;
  let client: RpcClient;

  beforeAll(async () => {
    const natsUrl = inject('natsUrl');
    for (const name of ['a', 'b']) replicas.push(await bootstrapService(ReplicaModule.named(name), { queue: 'replicas', natsUrl }));
    nats = await ResilientNatsConnection.open({ servers: natsUrl, name: 'replicas-spec' });
    client = new RpcClient(nats, 2_000);
  });

  afterAll(async () => {
    client?.close();
    await nats?.close();
    for (const replica of replicas) await replica.close();
  });

  it('spreads requests over the replicas and handles each one once', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => client.send<string>('replicas.who', {})));
    expect(new Set(answers)).toEqual(new Set(['a', 'b']));
    expect((handled.a ?? 0) + (handled.b ?? 0)).toBe(60);
  });
});
