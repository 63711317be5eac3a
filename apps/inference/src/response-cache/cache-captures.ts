import { Injectable } from '@nestjs/common';
import type { Principal } from '@gw/contracts';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { CachedGeneration } from '@gw/usage';
import { Prisma } from '../generated/prisma/client.js';

/** A settled generation as accounting knows it. */
interface SettledGeneration {
  generationId: string;
  modelId: string;
  providerId: string;
  upstreamModel: string;
  usage: NormalizedUsage;
  charged: Prisma.Decimal;
  isByok: boolean;
  status: 'succeeded' | 'failed';
}

/** What one request being stored produced: its generations, the last one named, every one charged. */
export class Capture {
  private last: SettledGeneration | undefined;
  private charged = new Prisma.Decimal(0);
  private failed = false;

  note(generation: SettledGeneration): void {
    this.last = generation;
    this.charged = this.charged.add(generation.charged);
    if (generation.status !== 'succeeded') this.failed = true;
  }

  /** The answer's generation (the last one, with what every one charged); undefined when none succeeded wholly. */
  result(): CachedGeneration | undefined {
    const last = this.last;
    if (!last || this.failed) return undefined;
    return {
      id: last.generationId,
      modelId: last.modelId,
      providerId: last.providerId,
      upstreamModel: last.upstreamModel,
      usage: last.usage,
      charged: this.charged.toFixed(),
      isByok: last.isByok,
    };
  }
}

/**
 * What a request to be stored produced, told by the code that produces it without passing the
 * cache through every front door: accounting notes each settled generation under the request's
 * principal (one object per request, as spend holds key theirs), and a stream's packets are
 * tapped by its stream id. Requests that are not cached find nothing here (a map lookup).
 */
@Injectable()
export class ResponseCacheCaptures {
  private readonly generations = new WeakMap<Principal, Capture>();

  begin(principal: Principal): Capture {
    const capture = new Capture();
    this.generations.set(principal, capture);
    return capture;
  }

  end(principal: Principal): void {
    this.generations.delete(principal);
  }

  /** The capture of a request being stored, if this is one (nothing is built for the others). */
  of(principal: Principal): Capture | undefined {
    return this.generations.get(principal);
  }
}

/** What the cache takes from a stream it stores: each packet as it leaves, then the end, awaited before the end is sent. */
interface StreamTap {
  packet(packet: string): void;
  finish(): Promise<void>;
}

const streamTaps = new Map<string, StreamTap>();

/** The packets of stream `streamId` are also given to `tap` (the cache records a miss's stream). */
export function tapStream(streamId: string, tap: StreamTap): void {
  streamTaps.set(streamId, tap);
}

/** The tap of a stream starting now, removed as it is taken. */
export function takeStreamTap(streamId: string): StreamTap | undefined {
  if (streamTaps.size === 0) return undefined;
  const tap = streamTaps.get(streamId);
  if (tap) streamTaps.delete(streamId);
  return tap;
}

export function dropStreamTap(streamId: string): void {
  streamTaps.delete(streamId);
}
