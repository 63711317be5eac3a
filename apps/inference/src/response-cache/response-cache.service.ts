import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ChatStreamRequest, Principal, ResponseCacheControls } from '@gw/contracts';
import { JsonAnswer, ServedStream } from '@gw/messaging';
import {
  assertMaySpend,
  cacheKeyOf,
  controlsOf,
  decide,
  ResponseCacheStore,
  responseCacheMetrics,
  settleHit,
  stampJson,
  replayFrames,
  type CacheDecision,
  type CacheDoor,
  type CacheEntry,
  type CacheSettings,
  type HitStamp,
  type PacketFrame,
} from '@gw/usage';
import { randomUUID } from 'node:crypto';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PresetsService } from '../resolution/presets.service.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { GenerationUsagePublisher } from '../usage/generation-usage-publisher.service.js';
import { ResponseCacheCaptures, dropStreamTap, tapStream } from './cache-captures.js';

const cacheMetrics = responseCacheMetrics('inference');

/** Reply header telling the gateway how the cache answered (HIT, MISS, REFRESH). */
const CACHE_STATUS_HEADER = 'Gw-Cache';

/** First bytes of a replayed stream: an SSE comment (clients skip it) the gateway reads and removes. */
const STREAM_HIT_MARKER = ': cache HIT\n\n';

const POLL_MS = 25;

interface CachedRequest {
  principal: Principal;
  body: Record<string, unknown>;
  cache?: ResponseCacheControls;
  sessionId?: string;
  serviceMetadata?: boolean;
  metadataField?: 'openrouter_metadata';
  /** The key the gateway looked up for this whole answer and found nothing under. */
  cacheMissKey?: string;
}

interface Plan extends CacheDecision {
  door: CacheDoor;
  workspaceId: string;
  key: string;
  /** The gateway has just read the key and found nothing: not read again before coalescing. */
  missedAtEdge: boolean;
}

/** A lookup's outcome: a stored answer, or the right (or duty) to answer upstream, released once stored. */
type Lookup = { hit: CacheEntry } | { release: () => void };

/**
 * The response cache: in front of each front door's service, after the
 * preset is applied and before spend is held, so a hit takes no hold, makes no provider call and
 * is recorded as its own generation at the cache price. Requests that did not opt in (header,
 * body, preset) pass through after one check of three fields.
 */
@Injectable()
export class ResponseCache implements OnModuleDestroy {
  private readonly store: ResponseCacheStore;
  private readonly settings: CacheSettings;
  private readonly priceRate: string;
  private readonly waitMs: number;
  /** Identical requests in flight on this replica: resolved once the first one's answer is stored. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly presets: PresetsService,
    private readonly captures: ResponseCacheCaptures,
    private readonly usage: GenerationUsagePublisher,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    const logger = new Logger('ResponseCache');
    this.settings = { defaultTtlSeconds: env.RESPONSE_CACHE_DEFAULT_TTL_SECONDS, maxTtlSeconds: env.RESPONSE_CACHE_MAX_TTL_SECONDS };
    this.priceRate = env.RESPONSE_CACHE_PRICE_RATE;
    this.waitMs = env.RESPONSE_CACHE_COALESCE_WAIT_MS;
    this.store = new ResponseCacheStore({
      redisUrl: env.REDIS_URL,
      keyPrefix: env.REDIS_KEY_PREFIX,
      maxEntryBytes: env.RESPONSE_CACHE_MAX_ENTRY_BYTES,
      maxWorkspaceBytes: env.RESPONSE_CACHE_MAX_WORKSPACE_BYTES,
      metrics: cacheMetrics,
      warn: (message) => logger.warn(message),
    });
  }

  /** A whole answer (chat, Responses, Messages, embeddings): from the cache, or from `run` and stored. */
  async answer(request: CachedRequest, door: CacheDoor, run: () => Promise<unknown>): Promise<unknown> {
    if (!this.mayCache(request)) return run();
    const plan = await this.plan(request, door, false);
    if (!plan) return run();
    const lookup = await this.lookup(plan);
    if ('hit' in lookup && lookup.hit.kind === 'json') {
      const stamp = await this.settleHit(request, lookup.hit, false);
      return new JsonAnswer(stampJson(lookup.hit.text, stamp), { [CACHE_STATUS_HEADER]: 'HIT' });
    }
    const release = 'release' in lookup ? lookup.release : () => undefined;
    const capture = this.captures.begin(request.principal);
    try {
      const text = JSON.stringify(await run());
      const generation = capture.result();
      if (generation) await this.keep(plan, { kind: 'json', text, generation, storedAt: Date.now() });
      else cacheMetrics.skipped.inc({ reason: 'not_whole' });
      return new JsonAnswer(text, { [CACHE_STATUS_HEADER]: plan.missStatus });
    } finally {
      this.captures.end(request.principal);
      release();
    }
  }

  /**
   * A streamed answer: replayed from the cache in the door's framing, or `open`'s stream, whose
   * packets are stored once it ended well. `open` is called at once (inside the handler, where
   * the request's idempotency guard is found) and run only on a miss.
   */
  stream(request: ChatStreamRequest, door: CacheDoor, frame: PacketFrame, open: () => ServedStream): ServedStream {
    if (!this.mayCache(request)) return open();
    const upstream = open();
    return new ServedStream(async (out) => {
      let release = (): void => undefined;
      try {
        const plan = await this.plan(request, door, true);
        if (!plan) return await upstream.run(out);
        const lookup = await this.lookup(plan);
        if ('hit' in lookup && lookup.hit.kind === 'stream') {
          const stamp = await this.settleHit(request, lookup.hit, true);
          out.write(STREAM_HIT_MARKER);
          for (const framed of replayFrames(lookup.hit.packets, stamp, frame)) out.write(framed);
          return;
        }
        if ('release' in lookup) release = lookup.release;
        const capture = this.captures.begin(request.principal);
        const packets: string[] = [];
        tapStream(request.streamId, {
          packet: (packet) => packets.push(packet),
          // Stored before the stream's end leaves, so the client's next identical request finds it.
          finish: async () => {
            const generation = capture.result();
            if (generation) await this.keep(plan, { kind: 'stream', packets, generation, storedAt: Date.now() });
            else cacheMetrics.skipped.inc({ reason: 'not_whole' });
            release();
          },
        });
        await upstream.run(out);
      } catch (error) {
        throw error instanceof UpstreamFailure ? error.gatewayError : error;
      } finally {
        dropStreamTap(request.streamId);
        this.captures.end(request.principal);
        release();
      }
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.close();
  }

  /** Might this request be cached at all? Only an opt-in (header, body, key) or a preset (which may opt in) says so. */
  private mayCache(request: CachedRequest): boolean {
    if (this.settings.maxTtlSeconds === 0) return false;
    if (request.cache !== undefined || request.principal.responseCacheTtlSeconds) return true;
    const { body } = request;
    return (
      (body.cache !== undefined && body.cache !== null) ||
      (body.preset !== undefined && body.preset !== null) ||
      (typeof body.model === 'string' && body.model.includes('@preset/'))
    );
  }

  /** The request after its preset, its controls and its key; undefined when it is not cached. */
  private async plan(request: CachedRequest, door: CacheDoor, streamed: boolean): Promise<Plan | undefined> {
    const { workspaceId } = request.principal;
    const { body, presetId } = await this.presets.apply(workspaceId, request.body);
    const decision = decide(controlsOf(request.cache, body, request.principal.responseCacheTtlSeconds), body, this.settings);
    if (!decision) return undefined;
    // The gateway looks only where the body is the key's (no preset) and a whole answer is read.
    const edgeKey = !streamed && presetId === undefined && decision.read ? request.cacheMissKey : undefined;
    return { ...decision, door, workspaceId, key: edgeKey ?? cacheKeyOf(door, streamed, body), missedAtEdge: edgeKey !== undefined };
  }

  private async lookup(plan: Plan): Promise<Lookup> {
    const { door, workspaceId, key } = plan;
    if (!plan.read) {
      cacheMetrics.lookups.inc({ door, result: 'refresh' });
      return { release: () => undefined };
    }
    const stored = plan.missedAtEdge ? undefined : await this.store.get(workspaceId, key);
    if (stored) return this.hit(door, stored);
    if (!plan.coalesce) return this.miss(door);
    const name = `${workspaceId}:${key}`;
    const running = this.inFlight.get(name);
    if (running) {
      // The same request is being answered on this replica: its answer, once stored.
      await Promise.race([running, delay(this.waitMs)]);
      const answered = await this.store.get(workspaceId, key);
      if (answered) return this.hit(door, answered, true);
      return this.miss(door);
    }
    let done!: () => void;
    this.inFlight.set(name, new Promise<void>((resolve) => (done = resolve)));
    const token = randomUUID();
    const release = (): void => {
      if (this.inFlight.get(name) === undefined) return;
      this.inFlight.delete(name);
      done();
      void this.store.unlead(workspaceId, key, token);
    };
    if (!(await this.store.lead(workspaceId, key, token, this.waitMs))) {
      // Another replica answers it: wait for its entry while it holds the lead.
      const answered = await this.awaitEntry(workspaceId, key);
      if (answered) {
        release();
        return this.hit(door, answered, true);
      }
    }
    cacheMetrics.lookups.inc({ door, result: 'miss' });
    return { release };
  }

  private hit(door: CacheDoor, entry: CacheEntry, coalesced = false): Lookup {
    cacheMetrics.lookups.inc({ door, result: 'hit' });
    if (coalesced) cacheMetrics.coalesced.inc({ door });
    return { hit: entry };
  }

  private miss(door: CacheDoor): Lookup {
    cacheMetrics.lookups.inc({ door, result: 'miss' });
    return { release: () => undefined };
  }

  private async awaitEntry(workspaceId: string, key: string): Promise<CacheEntry | undefined> {
    const deadline = Date.now() + this.waitMs;
    while (Date.now() < deadline) {
      await delay(POLL_MS);
      const entry = await this.store.get(workspaceId, key);
      if (entry) return entry;
      if (!(await this.store.isLed(workspaceId, key))) return undefined;
    }
    return undefined;
  }

  private async keep(plan: Plan, entry: CacheEntry): Promise<void> {
    await this.store.put(plan.workspaceId, plan.key, entry, plan.ttlSeconds);
  }

  /**
   * A hit is a generation of its own: no spend hold (nothing upstream), charged the cache price,
   * its usage event stored before the answer leaves, marked a hit with the cost it avoided.
   */
  private async settleHit(request: CachedRequest, entry: CacheEntry, streamed: boolean): Promise<HitStamp> {
    assertMaySpend(request.principal);
    const { event, stamp } = settleHit(request, entry, streamed, this.priceRate, newGenerationId);
    await this.usage.publish(event);
    return stamp;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
