import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Objm, setSha256Backend, type ObjectStore } from '@nats-io/obj';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { reconcileReplicas, serverPlacement, SINGLE_NODE, type JetStreamPlacement } from './jetstream-placement.js';

/**
 * Header of a request or reply whose body is not in the message but in the object store
 * bucket RPC_BODIES, under the name it gives.
 */
export const RPC_BODY_HEADER = 'Gw-Body-Ref';
export const RPC_BODIES_BUCKET = 'RPC_BODIES';

// The object store hashes every object (SHA-256) on put and on get; its default is pure JS,
// ~45 ms a MB here, node:crypto's ~2 ms. Process-wide, which is what it is for.
setSha256Backend('native');
/** Longer than any call: a body nobody deleted (its caller died) goes away by itself. */
const BODY_TTL_NS = 15 * 60 * 1_000_000_000;
/** Room for the subject, reply subject and headers inside NATS's max_payload. */
const HEADROOM_BYTES = 16 * 1024;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

export interface LargeBodiesOptions {
  /** Largest body sent inline; larger ones go by reference. Default: the server's max_payload minus 16 KB. */
  inlineMaxBytes?: number;
  /** Replicas and tags of the bucket's stream; default one copy. */
  placement?: JetStreamPlacement;
}

/**
 * Bodies larger than NATS's max_payload (1 MB, which NATS advises keeping) travel through
 * JetStream's object store: the sender puts the bytes in RPC_BODIES (file storage, 15 min TTL)
 * and sends a message with `Gw-Body-Ref: <name>` and no body; the receiver reads them. Request
 * bodies are deleted by the caller once the call ended (a resend to another replica reads the
 * same object); reply bodies by the caller once read.
 */
export class LargeBodies {
  private store?: Promise<ObjectStore>;

  constructor(
    private readonly connection: NatsConnection,
    private readonly options: LargeBodiesOptions = {},
  ) {}

  /** True when `size` bytes do not fit in one message of this connection. */
  tooLargeInline(size: number): boolean {
    const maxPayload = this.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    return size > Math.min(this.options.inlineMaxBytes ?? Number.POSITIVE_INFINITY, maxPayload - HEADROOM_BYTES);
  }

  private chunkBytes(): number {
    return (this.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - HEADROOM_BYTES;
  }

  /** Stores the bytes; resolves with the headers of the message that refers to them. */
  async put(bytes: Uint8Array): Promise<{ name: string; headers: MsgHdrs }> {
    const name = randomUUID();
    const store = await this.bucket();
    // Chunks as large as a message may be: 3 for a 3 MB body instead of 24 of the default 128 KB.
    await store.putBlob({ name, options: { max_chunk_size: this.chunkBytes() } }, bytes);
    return { name, headers: refHeaders(name) };
  }

  async get(name: string): Promise<Uint8Array> {
    const bytes = await (await this.bucket()).getBlob(name);
    if (!bytes) throw new Error(`body ${name} is not in ${RPC_BODIES_BUCKET} (expired or deleted)`);
    return bytes;
  }

  /** Best effort: the TTL removes what is not deleted. */
  delete(name: string): void {
    void this.bucket()
      .then((store) => store.delete(name))
      .catch(() => undefined);
  }

  private bucket(): Promise<ObjectStore> {
    this.store ??= this.openBucket();
    this.store.catch(() => (this.store = undefined));
    return this.store;
  }

  /** Opens (or creates) the bucket, raising the replicas of one made with fewer. */
  private async openBucket(): Promise<ObjectStore> {
    const placement = this.options.placement ?? SINGLE_NODE;
    const store = await new Objm(this.connection).create(RPC_BODIES_BUCKET, {
      ttl: BODY_TTL_NS,
      storage: StorageType.File,
      description: 'RPC bodies over max_payload (ADR 0031)',
      replicas: placement.replicas,
      ...(placement.tags.length > 0 ? { placement: serverPlacement(placement) } : {}),
    });
    if ((await store.status()).replicas < placement.replicas) {
      const manager = await jetstreamManager(this.connection);
      await reconcileReplicas(manager, (await manager.streams.info(`OBJ_${RPC_BODIES_BUCKET}`)).config, placement);
    }
    return store;
  }
}

export function refHeaders(name: string): MsgHdrs {
  const headers = natsHeaders();
  headers.set(RPC_BODY_HEADER, name);
  return headers;
}

export const EMPTY = new Uint8Array(0);
