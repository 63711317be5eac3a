import { GatewayError } from '@gw/errors';
import type { PreparedChat } from '../shared-pipeline/chat-preparation.service.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { ANTHROPIC_ONLY_FIELDS, DROPPABLE_FIELDS, unservedFields } from './chat-body-from-messages.js';
import { nativeAnthropicBody } from './native-body.js';

/** A `/v1/messages` request as each upstream format takes it. */
export interface MessagesRequestForms {
  /** The caller's Messages body. */
  request: Record<string, unknown>;
  /** Its chat-completions form before the preset (chatBodyFromMessages). */
  chat: Record<string, unknown>;
  /** The caller's `anthropic-beta` values. */
  betas?: string[];
}

/** The Messages body for an Anthropic-format attempt (see native-body.ts). */
export function nativeBodyFor(
  forms: MessagesRequestForms,
  attempt: RouteAttempt,
  prepared: PreparedChat,
  stream: boolean,
): Record<string, unknown> {
  const body = nativeAnthropicBody({
    request: forms.request,
    chat: forms.chat,
    prepared: prepared.body,
    upstreamModel: attempt.endpoint.upstreamModel,
    endUserHash: prepared.base.endUserHash,
  });
  if (stream) body.stream = true;
  else delete body.stream;
  return body;
}

/** What no endpoint is sent: fields that are neither the Messages API's nor the gateway's. */
function unservedWarnings(forms: MessagesRequestForms): string[] {
  return unservedFields(forms.request).map((field) => `${field} was left out: not a Messages API field`);
}

/**
 * What an Anthropic-format endpoint is not sent: `diagnostics` names a previous message by its
 * id, and the ids callers see are the gateway's, which the provider does not know.
 */
export function nativeWarnings(forms: MessagesRequestForms): string[] {
  const diagnostics = forms.request.diagnostics;
  const warnings = unservedWarnings(forms);
  if (diagnostics === undefined || diagnostics === null) return warnings;
  return ["diagnostics was left out: message ids are the gateway's, which the provider cannot look up", ...warnings];
}

/**
 * What an OpenAI-format endpoint cannot take from a Messages request: Anthropic server tools
 * and the Anthropic-only fields the answer needs are refused with 400 naming them; what it can
 * do without (context_management, the beta flags) is left out and named in the warnings returned.
 */
export function translationWarnings(forms: MessagesRequestForms, attempt: RouteAttempt): string[] {
  const provider = attempt.endpoint.provider.name;
  for (const field of ANTHROPIC_ONLY_FIELDS) {
    if (forms.request[field] !== undefined && forms.request[field] !== null) {
      throw GatewayError.badRequest(`${field} is not supported by ${attempt.modelId} on ${provider} (an OpenAI-format provider)`, {
        param: field,
      });
    }
  }
  const tools = Array.isArray(forms.chat.tools) ? (forms.chat.tools as Array<{ type?: unknown }>) : [];
  const server = tools.find((tool) => tool.type !== 'function');
  if (server)
    throw GatewayError.badRequest(
      `The ${String(server.type)} tool is not supported by ${attempt.modelId} on ${provider} (an OpenAI-format provider)`,
      { param: 'tools' },
    );
  const where = `${attempt.modelId} on ${provider} (an OpenAI-format provider)`;
  const warnings = DROPPABLE_FIELDS.filter((field) => forms.request[field] !== undefined && forms.request[field] !== null).map(
    (field) => `${field} was left out: not supported by ${where}`,
  );
  if (forms.betas && forms.betas.length > 0)
    warnings.push(`anthropic-beta ${forms.betas.join(',')} was not sent: not supported by ${where}`);
  return [...warnings, ...unservedWarnings(forms)];
}
