import { Controller, Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { LoggerModule } from 'nestjs-pino';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NatsClientModule } from './nats-client.module.js';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { startServiceReplica, type ServiceReplica } from './service-bootstrap.js';

const SUBJECT_BYE = 'shared.spec.bye';
let release: (() => void) | undefined;

@Controller()
class SharedController {
  @MessagePattern('shared.spec.echo')
  echo(data: { text: string }): string {
    return data.text;
  }

  /** Answers once the test releases it: a request in flight while the replica stops. */
  @MessagePattern('shared.spec.slow')
  async slow(): Promise<string> {
    await new Promise<void>((resolve) => (release = resolve));
    return 'finished';
  }
}

/** Publishes on the app's connection from a shutdown hook, which runs after the server closed. */
@Injectable()
class GoodbyeOnShutdown implements OnApplicationShutdown {
  constructor(@Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection) {}

  async onApplicationShutdown(): Promise<void> {
    this.nats.connection.publish(SUBJECT_BYE, 'bye');
    await this.nats.connection.flush();
  }
}

@Module({})
class SharedModule {
  static on(natsUrl: string, withClient: boolean): DynamicModule {
    return {
      module: SharedModule,
      imports: [
        LoggerModule.forRoot(loggerParams('shared', 'silent')),
        ...(withClient ? [NatsClientModule.forRoot({ natsUrl, name: 'shared-spec', rpcTimeoutMs: 2_000 })] : []),
      ],
      controllers: [SharedController],
      providers: withClient ? [GoodbyeOnShutdown] : [],
    };
  }
}

/** ADR 0089: a service's Nest server listens on the app's own client connection, one connection per process. */
describe('the server shares the app client connection', () => {
  let natsUrl: string;
  let caller: ResilientNatsConnection;
  let client: RpcClient;

  beforeAll(async () => {
    natsUrl = inject('natsUrl');
    caller = await ResilientNatsConnection.open({ servers: natsUrl, name: 'shared-spec-caller' });
    client = new RpcClient(caller, 5_000);
  });

  afterAll(async () => {
    client?.close();
    await caller?.close();
  });

  it('listens and replies on the connection of NatsClientModule', async () => {
    const replica = await startServiceReplica(SharedModule.on(natsUrl, true), { queue: 'shared-spec-a', natsUrl });
    try {
      const appConnection = replica.app.get(ResilientNatsConnection).connection;
      expect(replica.server.unwrap<NatsConnection>()).toBe(appConnection);
      expect(await client.send<string>('shared.spec.echo', { text: 'hello' })).toBe('hello');
    } finally {
      await replica.stop();
    }
  });

  it('stops gracefully: answers what is in flight, keeps the connection for the shutdown hooks, then closes it', async () => {
    const replica: ServiceReplica = await startServiceReplica(SharedModule.on(natsUrl, true), { queue: 'shared-spec-b', natsUrl });
    const appConnection = replica.app.get(ResilientNatsConnection).connection;
    const goodbyes: string[] = [];
    const watcher = caller.connection.subscribe(SUBJECT_BYE, {
      callback: (_error, message) => {
        goodbyes.push(message.string());
      },
    });
    await caller.connection.flush();

    const answer = client.send<string>('shared.spec.slow', {});
    await until(() => release !== undefined);
    const stopped = replica.stop();
    // The server drains its subscriptions and waits for the request in flight before anything closes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(appConnection.isClosed()).toBe(false);
    release!();
    release = undefined;
    expect(await answer).toBe('finished');
    await stopped;

    await caller.connection.flush();
    await until(() => goodbyes.length > 0);
    expect(goodbyes).toEqual(['bye']);
    expect(appConnection.isClosed()).toBe(true);
    watcher.unsubscribe();
  });

  it('opens a connection of its own in an app without NatsClientModule, and closes it on stop', async () => {
    const replica = await startServiceReplica(SharedModule.on(natsUrl, false), { queue: 'shared-spec-c', natsUrl });
    const own = replica.server.unwrap<NatsConnection>();
    expect(await client.send<string>('shared.spec.echo', { text: 'alone' })).toBe('alone');
    await replica.stop();
    expect(own.isClosed()).toBe(true);
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
