import { Controller, Get, HttpStatus, Inject, Res } from '@nestjs/common';
import { HEALTH_MESSAGES, type ServiceName } from '@gw/contracts';
import { ReplicaLifecycle, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { Answers, Doc } from '../openapi/api-docs.js';

/** Below a probe's usual 1 s timeout, so a hung service cannot make the probe itself time out. */
const SERVICE_HEALTH_TIMEOUT_MS = 800;

@Controller('health')
export class HealthController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection,
    @Inject(ReplicaLifecycle) private readonly lifecycle: ReplicaLifecycle,
  ) {}

  /** Liveness: the process serves HTTP. */
  @Public()
  @Get()
  @Doc('Liveness: the process serves HTTP')
  @Answers(200, 'HealthAnswer', 'Alive')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: this replica can serve: it is connected to NATS and not draining.
   * Services being down does not make it unready: every gateway replica would be equally
   * unready, and the routes of a missing service answer 503 envelopes on their own.
   */
  @Public()
  @Get('ready')
  @Doc('Readiness: this replica can serve (connected to NATS, not draining)')
  @Answers(200, 'HealthAnswer', 'Ready')
  @Answers(503, 'NotReadyAnswer', 'Draining or disconnected from NATS')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const reason = this.lifecycle.draining ? 'draining' : this.nats.isConnected() ? undefined : 'nats_disconnected';
    await reply
      .status(reason ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.OK)
      .send(reason ? { status: 'unavailable', reason } : { status: 'ok' });
  }

  /** Every service's health over NATS, for operators and `npm run up`: 503 when one does not answer. */
  @Public()
  @Get('services')
  @Doc('Every service, as it answers over NATS')
  @Answers(200, 'ServicesHealthAnswer', 'All services answered')
  @Answers(503, 'ServicesHealthAnswer', 'At least one service did not answer')
  async services(@Res() reply: FastifyReply): Promise<void> {
    const names = Object.keys(HEALTH_MESSAGES) as ServiceName[];
    const results = await Promise.all(
      names.map(async (name) => {
        try {
          const health = await this.rpc.send(HEALTH_MESSAGES[name], {}, SERVICE_HEALTH_TIMEOUT_MS);
          return [name, health.status] as const;
        } catch (error) {
          return [name, (error as Error).message] as const;
        }
      }),
    );
    const ready = results.every(([, status]) => status === 'ok');
    await reply
      .status(ready ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE)
      .send({ status: ready ? 'ok' : 'unavailable', services: Object.fromEntries(results) });
  }
}
