import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { EndpointCooled } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { counter } from '@gw/metrics';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { CooldownMirror, type Cooldown } from './cooldown-board.js';
import { parseMember, RedisCooldownStore } from './cooldown-store.js';

/** No store call may hold anything up longer. */
const STORE_TIMEOUT_MS = 500;

const started = counter('inference_endpoint_cooldowns_total', 'Endpoint cooldowns this replica started, by provider and reason', [
  'provider',
  'reason',
]);
const storeCalls = counter(
  'inference_endpoint_cooldown_store_calls_total',
  'Calls to the shared cooldown store (Redis): writes when a cooldown starts, reads on a timer; never one per request',
  ['op', 'outcome'],
);

/**
 * The endpoint cooldowns every replica shares. Routing reads this replica's mirror (a map);
 * a cooldown started here is applied at once, announced to every replica on
 * `events.routing.endpoint-cooled` and written to Redis, which each replica re-reads every
 * `ENDPOINT_COOLDOWN_SYNC_MS` (a replica that starts, or missed an event, catches up there).
 * Redis down: writes and reads fail fast, are counted, and routing goes on with the mirror.
 */
@Injectable()
export class EndpointCooldowns extends CooldownMirror implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(EndpointCooldowns.name);
  private readonly store: RedisCooldownStore;
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(INFERENCE_ENV) private readonly env: InferenceEnv,
    private readonly nats: ResilientNatsConnection,
  ) {
    super();
    this.store = new RedisCooldownStore({ redisUrl: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX, timeoutMs: STORE_TIMEOUT_MS });
  }

  async onModuleInit(): Promise<void> {
    this.subscription = this.nats.connection.subscribe(EndpointCooled.subject, {
      callback: (error, message) => {
        if (error) return;
        const cooldown = cooldownOf(message.data);
        if (cooldown) this.apply(cooldown);
      },
    });
    // A replica that starts learns the running cooldowns before it routes, when Redis answers in time.
    await this.store.ready(1_000);
    await this.sync();
    this.timer = setInterval(() => void this.sync(), this.env.ENDPOINT_COOLDOWN_SYNC_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    await this.store.close();
  }

  override coolDown(cooldown: Cooldown): void {
    if (!this.apply(cooldown)) return;
    started.inc({ provider: providerOf(cooldown.key), reason: cooldown.reason });
    try {
      this.nats.connection.publish(EndpointCooled.subject, JSON.stringify({ pattern: EndpointCooled.subject, data: cooldown }));
    } catch (error) {
      // The others read it from Redis at their next sync.
      this.logger.warn(`Endpoint cooldown not announced: ${(error as Error).message}`);
    }
    this.store.write(cooldown).then(
      () => storeCalls.inc({ op: 'write', outcome: 'ok' }),
      () => storeCalls.inc({ op: 'write', outcome: 'failed' }),
    );
  }

  private async sync(): Promise<void> {
    try {
      for (const cooldown of await this.store.running(Date.now())) this.apply(cooldown);
      storeCalls.inc({ op: 'read', outcome: 'ok' });
    } catch {
      storeCalls.inc({ op: 'read', outcome: 'failed' });
    }
  }
}

/** The provider of a key (`openai/gpt-4o|gateway`, `workspace:...`): a bounded label. */
function providerOf(key: string): string {
  const end = key.search(/[/:|]/);
  return end === -1 ? key : key.slice(0, end);
}

/** The event's cooldown, checked as any message from another replica is; undefined when malformed. */
function cooldownOf(data: Uint8Array): Cooldown | undefined {
  try {
    const packet = JSON.parse(new TextDecoder().decode(data)) as { data?: Record<string, unknown> };
    const payload = packet.data;
    if (!payload || typeof payload.until !== 'number' || !Number.isFinite(payload.until)) return undefined;
    const parsed = parseMember(JSON.stringify(payload));
    return parsed && { ...parsed, until: payload.until };
  } catch {
    return undefined;
  }
}
