export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a request body that must be a JSON object; undefined otherwise. */
export function parseJsonObject(raw: Buffer): Json | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
