/**
 * Secrets of known shapes, replaced by `[REDACTED:<kind>]` before a content is stored. The
 * patterns are the providers' documented key formats (long enough not to hit ordinary words);
 * a secret of another shape is stored as sent, which the content logging setting warns about.
 */
const PATTERNS: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'gateway_key', pattern: /\bsk-gw-v1-[0-9a-f]{64}\b/g },
  { kind: 'openrouter_key', pattern: /\bsk-or-v1-[0-9a-f]{64}\b/g },
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'stripe_key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'private_key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g },
];

/** The text with every secret of a known shape replaced, and how many were. */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const { kind, pattern } of PATTERNS) {
    out = out.replace(pattern, () => {
      redactions++;
      return `[REDACTED:${kind}]`;
    });
  }
  return { text: out, redactions };
}

/** Every string inside a JSON value redacted (keys kept), so the structure stays valid. */
export function redactDeep<T>(value: T, count: { redactions: number }): T {
  if (typeof value === 'string') {
    const redacted = redactSecrets(value);
    count.redactions += redacted.redactions;
    return redacted.text as T;
  }
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, count)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, count)])) as T;
  }
  return value;
}
