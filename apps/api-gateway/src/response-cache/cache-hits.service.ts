import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ChatCreateRequest, UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { generationIdOf, PrincipalSigner, readPrincipalClaims, ResilientNatsConnection } from '@gw/messaging';
import { randomUUID } from 'node:crypto';
import { currentRequestId } from '@gw/telemetry';
import {
  assertMaySpend,
  cacheKeyOf,
  controlsOf,
  decide,
  JetStreamUsagePublisher,
  ResponseCacheStore,
  replayFrames,
  newGenerationId,
  responseCacheMetrics,
  settleHit,
  stampJson,
  UsageOutbox,
  type CacheDoor,
  type CacheEntry,
  type HitStamp,
  type PacketFrame,
} from '@gw/usage';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { HitGrants } from './hit-grants.js';

const cacheMetrics = responseCacheMetrics('gateway');

/** What the edge found: a hit's answer, or nothing under the key inference then stores under. */
type EdgeLookup = { hit: string } | { missKey: string };

/** What of a front door's bus request the edge reads (a whole answer's or a stream's). */
type EdgeRequest = Pick<
  ChatCreateRequest<object>,
  'principal' | 'body' | 'cache' | 'idempotency' | 'sessionId' | 'serviceMetadata' | 'metadataField'
>;

/** Hits whose usage events wait for JetStream at once; past it a hit is left to inference (which has its own outbox). */
const OUTBOX_MAX = 10_000;
/** As inference's USAGE_ACK_TIMEOUT_MS default: a hit is not answered unbilled. */
const ACK_TIMEOUT_MS = 10_000;
const SHUTDOWN_FLUSH_MS = 5_000;

/**
 * Response-cache hits answered at the edge: a whole answer the client opted in to,
 * without a preset (presets are resolved in inference) or an Idempotency-Key (inference keeps
 * those outcomes), read from the same Redis entries inference stores, under the same key. A hit
 * is recorded exactly as inference records one (`settleHit`: its own generation, the cache price,
 * the cost avoided, usage durable in JetStream before the answer leaves), but skips the bus
 * round trip, the principal's signature and its check, and inference's pipeline. Anything else,
 * a miss included, goes to inference as before: it looks again, coalesces and stores.
 */
@Injectable()
export class ResponseCacheHits implements OnModuleDestroy {
  private readonly logger = new Logger(ResponseCacheHits.name);
  private readonly store: ResponseCacheStore;
  private readonly publisher: JetStreamUsagePublisher;
  private readonly outbox: UsageOutbox;
  private readonly settings: { defaultTtlSeconds: number; maxTtlSeconds: number };
  private readonly priceRate: string;
  private readonly freeHits: boolean;
  private readonly signer: PrincipalSigner | undefined;
  private readonly grants: HitGrants | undefined;

  constructor(nats: ResilientNatsConnection, @Inject(GATEWAY_ENV) env: GatewayEnv) {
    // Reads only: the default TTL applies to stores, which inference makes.
    this.settings = { defaultTtlSeconds: 1, maxTtlSeconds: env.RESPONSE_CACHE_MAX_TTL_SECONDS };
    this.priceRate = env.RESPONSE_CACHE_PRICE_RATE;
    this.freeHits = Number(this.priceRate) === 0;
    this.signer = PrincipalSigner.fromEnv(env);
    this.grants = this.signer ? new HitGrants(this.signer) : undefined;
    this.store = new ResponseCacheStore({
      redisUrl: env.REDIS_URL,
      keyPrefix: env.REDIS_KEY_PREFIX,
      maxEntryBytes: Number.MAX_SAFE_INTEGER,
      maxWorkspaceBytes: Number.MAX_SAFE_INTEGER,
      metrics: cacheMetrics,
      warn: (message) => this.logger.warn(message),
    });
    this.publisher = new JetStreamUsagePublisher(nats.connection, nats.jetstream);
    let lastErrorLog = 0;
    this.outbox = new UsageOutbox(this.publisher.publish, {
      maxPending: OUTBOX_MAX,
      lingerMs: 0,
      onDrop: (event) => this.logger.error(`Usage outbox full: dropped the usage event of cache hit ${event.generationId}`),
      onPublishError: (error) => {
        if (Date.now() - lastErrorLog < 10_000) return;
        lastErrorLog = Date.now();
        this.logger.warn(
          `Cache-hit usage events not yet acknowledged by JetStream: ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    });
  }

  /**
   * The stamped JSON text of a stored whole answer for `payload`, its usage recorded; or the key
   * looked up and not found, for inference to store under; undefined when the edge does not look.
   */
  async answer(door: CacheDoor, payload: EdgeRequest): Promise<EdgeLookup | undefined> {
    const found = await this.find(door, false, payload);
    if (!found) return undefined;
    const { key, entry } = found;
    if (!entry) {
      cacheMetrics.lookups.inc({ door, result: 'miss' });
      return { missKey: key };
    }
    // A stream's entry is never under a whole answer's key (the key says which).
    if (entry.kind !== 'json') return undefined;
    const stamp = await this.settle(door, payload, entry, false);
    return { hit: stampJson(entry.text, stamp) };
  }

  /**
   * A stored stream for `payload` as its client's bytes in the door's framing (`frame`), its
   * usage recorded; undefined otherwise (inference answers it, and stores it on a miss).
   */
  async replay(door: CacheDoor, payload: EdgeRequest, frame: PacketFrame): Promise<string[] | undefined> {
    const entry = (await this.find(door, true, payload))?.entry;
    if (entry?.kind !== 'stream') return undefined;
    const stamp = await this.settle(door, payload, entry, true);
    return replayFrames(entry.packets, stamp, frame);
  }

  /** The key and what Redis holds under it, when the edge may answer `payload` from the cache. */
  private async find(door: CacheDoor, streamed: boolean, payload: EdgeRequest): Promise<{ key: string; entry?: CacheEntry } | undefined> {
    if (this.settings.maxTtlSeconds === 0 || payload.idempotency) return undefined;
    const { principal } = payload;
    // The key and the opt-in read the body as any front door's JSON.
    const body = payload.body as Record<string, unknown>;
    if (payload.cache === undefined && !principal.responseCacheTtlSeconds && (body.cache === undefined || body.cache === null))
      return undefined;
    if ((body.preset !== undefined && body.preset !== null) || (typeof body.model === 'string' && body.model.includes('@preset/')))
      return undefined;
    const decision = decide(controlsOf(payload.cache, body, principal.responseCacheTtlSeconds), body, this.settings);
    if (!decision?.read) return undefined;
    const key = cacheKeyOf(door, streamed, body);
    return { key, entry: await this.store.get(principal.workspaceId, key) };
  }

  /** The hit's spend check and usage record (durable before the answer leaves); its stamp. */
  private async settle(door: CacheDoor, payload: EdgeRequest, entry: CacheEntry, streamed: boolean): Promise<HitStamp> {
    assertMaySpend(payload.principal);
    const requestId = currentRequestId() ?? randomUUID();
    const { proof, newId } = this.proofOf(payload, requestId);
    const { event, stamp } = settleHit(payload, entry, streamed, this.priceRate, newId);
    event.requestId = requestId;
    if (proof) event.principal = proof;
    await this.record(event);
    cacheMetrics.lookups.inc({ door, result: 'hit' });
    return stamp;
  }

  async onModuleDestroy(): Promise<void> {
    if (!(await this.outbox.flush(SHUTDOWN_FLUSH_MS)))
      this.logger.error(`Stopped with ${this.outbox.pending} cache-hit usage events not acknowledged by JetStream`);
    this.outbox.close();
    this.publisher.close();
    await this.store.close();
  }

  /**
   * The proof the billing consumers ask of the hit's event. A free hit (the default cache price)
   * takes the key's hit grant, which the consumers accept only on events that cost nothing; a
   * priced hit signs its request's token and takes its first generation slot, like any request.
   */
  private proofOf(payload: EdgeRequest, requestId: string): { proof?: string; newId: () => string } {
    if (!this.signer || !this.grants) return { newId: newGenerationId };
    if (this.freeHits) return { proof: this.grants.of(payload.principal), newId: newGenerationId };
    const proof = this.signer.sign({ actsFor: 'principal' }, payload, requestId);
    const nonce = proof ? readPrincipalClaims(proof)?.n : undefined;
    return { proof, newId: nonce ? () => generationIdOf(nonce, 0) : newGenerationId };
  }

  /** As inference's `GenerationUsagePublisher.store`: durable before the answer leaves, else a retryable 503. */
  private async record(event: UsageRecordedEvent): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not acknowledged within ${ACK_TIMEOUT_MS} ms`)), ACK_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.outbox.enqueueAndWait(event), timeout]);
    } catch (error) {
      this.logger.error(
        `Cache hit ${event.generationId} not answered: its usage event is not stored in JetStream (${(error as Error).message})`,
      );
      throw new GatewayError(503, 'Usage could not be recorded; the generation was not returned', {
        errorType: 'server',
        metadata: { reason: 'usage_unavailable', retryable: true },
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
