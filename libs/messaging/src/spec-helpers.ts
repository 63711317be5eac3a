import type { DynamicModule, INestMicroservice, Type } from '@nestjs/common';
import { PrivateNatsServer } from '@gw/testing';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { bootstrapService } from './service-bootstrap.js';

/** A private nats-server, one service replica of `module` on it, and an RpcClient calling it. */
export interface RpcHarness {
  nats: PrivateNatsServer;
  service: INestMicroservice;
  connection: ResilientNatsConnection;
  client: RpcClient;
  /** Client, connection, service, then the server. */
  close(): Promise<void>;
}

export async function startRpcHarness(
  module: Type<unknown> | DynamicModule,
  options: { queue: string; clientName: string; timeoutMs: number },
): Promise<RpcHarness> {
  const nats = await PrivateNatsServer.start();
  const service = await bootstrapService(module, { queue: options.queue, natsUrl: nats.url });
  const connection = await ResilientNatsConnection.open({ servers: nats.url, name: options.clientName });
  const client = new RpcClient(connection, options.timeoutMs);
  return {
    nats,
    service,
    connection,
    client,
    close: async () => {
      client.close();
      await connection.close();
      await service.close();
      await nats.stop();
    },
  };
}
