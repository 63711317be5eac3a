import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { HEALTH_SUBJECTS, type HealthReply, type ServiceName } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';

const READINESS_TIMEOUT_MS = 2_000;

@Controller('health')
export class HealthController {
  constructor(private readonly rpc: RpcClient) {}

  /** Liveness: the process serves HTTP. */
  @Public()
  @Get()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: every service answers its health subject over NATS. */
  @Public()
  @Get('ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const names = Object.keys(HEALTH_SUBJECTS) as ServiceName[];
    const results = await Promise.all(
      names.map(async (name) => {
        try {
          const health = await this.rpc.send<HealthReply>(HEALTH_SUBJECTS[name], {}, READINESS_TIMEOUT_MS);
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
