import { createHash } from 'node:crypto';

/** The front door a request came through: its answers are stored apart (their shapes differ). */
export type CacheDoor = 'chat' | 'responses' | 'messages' | 'embeddings' | 'generate-content';

/**
 * Top-level fields that do not change the answer: who asked and how it is traced, routing
 * hints, the cache's own controls and the stream flag (streamed and whole answers are stored
 * apart, by the key's mode). Everything else is in the key, `models` and provider preferences too.
 */
const NOT_IN_KEY = new Set([
  'user',
  'session_id',
  'metadata',
  'trace',
  'cache',
  'stream',
  'prompt_cache_key',
  'safety_identifier',
  'store',
  'preset',
]);

/** Key of one request: its front door, streamed or not, and its body after the preset (canonical JSON, object keys sorted). */
export function cacheKeyOf(door: CacheDoor, streamed: boolean, body: Record<string, unknown>): string {
  const hash = createHash('sha256');
  hash.update(door);
  hash.update(streamed ? '\n1\n' : '\n0\n');
  const fields = Object.keys(body)
    .filter((field) => !NOT_IN_KEY.has(field) && body[field] !== null && body[field] !== undefined)
    .sort();
  for (const field of fields) hash.update(`${JSON.stringify(field)}:${canonicalJson(body[field])},`);
  return hash.digest('base64url');
}

/** JSON with every object's keys sorted, so two bodies that differ only in key order get one key. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
