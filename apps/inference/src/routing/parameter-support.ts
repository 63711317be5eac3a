import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';

/**
 * The request parameters whose support varies per provider and model: a catalog model's
 * `supportedParameters` lists the ones its endpoints take (OpenRouter's vocabulary). One the
 * answering endpoint lacks is dropped before the call and named in routing metadata; with
 * `provider.require_parameters: true` such endpoints are skipped instead.
 */
export const GATED_PARAMETERS = [
  'temperature',
  'top_p',
  'top_k',
  'top_a',
  'min_p',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'n',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'response_format',
  'structured_outputs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'reasoning_effort',
  'include_reasoning',
  'verbosity',
  'prediction',
  'modalities',
  'audio',
  'web_search_options',
  'service_tier',
] as const;

const GATED = new Set<string>(GATED_PARAMETERS);

/** Names a catalog entry may use for the same capability (the request says one, the catalog the other). */
const ALIASES: Record<string, readonly string[]> = {
  max_tokens: ['max_completion_tokens'],
  max_completion_tokens: ['max_tokens'],
  reasoning_effort: ['reasoning'],
  include_reasoning: ['reasoning'],
  reasoning: ['reasoning_effort', 'include_reasoning'],
  structured_outputs: ['response_format'],
};

/** The gated parameters a body sets (null means "not set"). */
export function requestedParameters(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((field) => GATED.has(field) && body[field] !== null && body[field] !== undefined);
}

export function supports(endpoint: RoutableEndpoint, parameter: string): boolean {
  const supported = endpoint.supportedParameters;
  return supported.has(parameter) || (ALIASES[parameter] ?? []).some((alias) => supported.has(alias));
}

/** The requested parameters this endpoint lacks. */
export function unsupportedParameters(endpoint: RoutableEndpoint, requested: readonly string[]): string[] {
  return requested.filter((parameter) => !supports(endpoint, parameter));
}

/** The body without the gated parameters the endpoint lacks. */
export function withoutUnsupported(body: Record<string, unknown>, endpoint: RoutableEndpoint): Record<string, unknown> {
  const dropped = unsupportedParameters(endpoint, requestedParameters(body));
  if (dropped.length === 0) return body;
  const kept = { ...body };
  for (const parameter of dropped) delete kept[parameter];
  return kept;
}

/** 400 when `provider.require_parameters` left no endpoint: it names what none of them takes. */
export function noEndpointSupports(requested: string, missing: readonly string[]): GatewayError {
  return new GatewayError(
    400,
    `No endpoint of "${requested}" supports every parameter of the request (provider.require_parameters): ${missing.join(', ')}`,
    {
      errorType: 'invalid_request',
      metadata: { reason: 'unsupported_parameters', parameters: [...missing] },
    },
  );
}
