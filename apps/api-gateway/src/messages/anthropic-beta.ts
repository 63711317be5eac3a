import { GatewayError } from '@gw/errors';

/** At most this many beta names in one request (Claude Code sends about ten). */
const MAX_BETAS = 64;
const BETA_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The `anthropic-beta` header's names (comma-separated, possibly repeated), as inference sends
 * them on to Anthropic-format endpoints; undefined when there are none. Whether a name is a beta
 * Anthropic knows is Anthropic's to say; one that cannot be a name is a 400 here.
 */
export function anthropicBetasOf(headers: Record<string, string | string[] | undefined>): string[] | undefined {
  const raw = headers['anthropic-beta'];
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : [raw])
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  const unique = [...new Set(names)];
  const bad = unique.find((name) => !BETA_NAME.test(name));
  if (bad !== undefined) throw GatewayError.badRequest(`anthropic-beta: "${bad.slice(0, 140)}" is not a beta name`);
  if (unique.length > MAX_BETAS) throw GatewayError.badRequest(`anthropic-beta: at most ${MAX_BETAS} betas`);
  return unique.length > 0 ? unique : undefined;
}
