import type { NormalizedUsage } from '../normalized-usage.js';

/** The generation an entry was answered by: what a hit's record names and the cost it avoids. */
export interface CachedGeneration {
  id: string;
  modelId: string;
  providerId: string;
  upstreamModel: string;
  usage: NormalizedUsage;
  /** What the workspace paid for it (every generation of the answer), a decimal string. */
  charged: string;
  isByok: boolean;
}

/** One stored answer: the JSON text of a whole answer, or a stream's packets in order. */
export type CacheEntry = { generation: CachedGeneration; storedAt: number } & (
  { kind: 'json'; text: string } | { kind: 'stream'; packets: string[] }
);
