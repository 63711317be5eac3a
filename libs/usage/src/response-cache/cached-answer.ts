/**
 * A stored answer made the answer of a hit: the stored generation's id becomes the hit's own
 * (every occurrence, so chunks, `response.id` and Messages' `id` follow), every `usage.cost` the
 * cache price, and routing metadata says the answer came from the cache (only when the caller
 * opted in to routing metadata; a stored one is removed otherwise). Content is left as stored.
 */
export interface HitStamp {
  storedId: string;
  hitId: string;
  /** What the hit is charged, as a number for the usage object. */
  cost: number;
  serviceMetadata: boolean;
  /** The field the hit's caller asked the metadata under (a stored answer may hold the other). */
  metadataField: 'service_metadata' | 'openrouter_metadata';
  ageSeconds: number;
}

/** The JSON text of a whole answer, stamped for the hit. */
export function stampJson(text: string, stamp: HitStamp): string {
  const answer = JSON.parse(text.replaceAll(stamp.storedId, stamp.hitId)) as Record<string, unknown>;
  stampObject(answer, stamp);
  return JSON.stringify(answer);
}

/**
 * One stored stream packet, stamped: a chat chunk (JSON) or framed SSE events (`event:` /
 * `data:` lines). Only packets that carry a cost or routing metadata are parsed.
 */
export function stampPacket(packet: string, stamp: HitStamp): string {
  const renamed = packet.replaceAll(stamp.storedId, stamp.hitId);
  if (!renamed.includes('"cost"') && !renamed.includes('"service_metadata"') && !renamed.includes('"openrouter_metadata"')) return renamed;
  if (!renamed.startsWith('event:') && !renamed.startsWith('data:')) return stampJsonText(renamed, stamp);
  return renamed
    .split('\n')
    .map((line) => (line.startsWith('data: ') && line.length > 6 ? `data: ${stampJsonText(line.slice(6), stamp)}` : line))
    .join('\n');
}

function stampJsonText(text: string, stamp: HitStamp): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof value !== 'object' || value === null) return text;
  stampObject(value as Record<string, unknown>, stamp);
  return JSON.stringify(value);
}

/** Every `usage` object's cost (at any depth: Responses nest the response in its events) and the routing metadata. */
function stampObject(node: Record<string, unknown>, stamp: HitStamp): void {
  for (const [field, value] of Object.entries(node)) {
    if (field === 'service_metadata' || field === 'openrouter_metadata') {
      delete node[field];
      if (stamp.serviceMetadata)
        node[stamp.metadataField] = { ...(value as object), cache: { status: 'hit', age_seconds: stamp.ageSeconds } };
    } else if (field === 'usage' && typeof value === 'object' && value !== null) {
      stampUsage(value as Record<string, unknown>, stamp.cost);
    } else if (typeof value === 'object' && value !== null) {
      stampObject(value as Record<string, unknown>, stamp);
    }
  }
}

function stampUsage(usage: Record<string, unknown>, cost: number): void {
  if (typeof usage.cost === 'number') usage.cost = cost;
  if (usage.is_byok === true) usage.is_byok = false;
  const details = usage.cost_details as Record<string, unknown> | undefined;
  if (details && typeof details === 'object') {
    // Nothing was paid upstream for a hit.
    for (const name of Object.keys(details)) if (typeof details[name] === 'number') details[name] = 0;
  }
}
