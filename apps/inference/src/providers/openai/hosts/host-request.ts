import { createHash } from 'node:crypto';
import { refusedFields, type HostProfile } from './openai-hosts.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The OpenAI body the adapter built, rewritten for one host: refused fields dropped, renamed
 * ones renamed, the completion cap under the name the host honours, messages in the shapes it
 * takes. `original` is the gateway's request (its `reasoning` object, which OpenRouter takes).
 */
export function adaptRequestToHost(upstream: Json, profile: HostProfile, upstreamModel: string, original: Json): Json {
  const out: Json = { ...upstream };
  moveMaxTokens(out, profile);
  adaptReasoning(out, profile, original);
  adaptResponseFormat(out, profile);
  if (!profile.namedToolChoice && isObject(out.tool_choice)) out.tool_choice = 'required';
  for (const field of refusedFields(profile, upstreamModel)) delete out[field];
  for (const [from, to] of Object.entries(profile.renames ?? {})) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  if (profile.streamUsage !== 'stream_options') delete out.stream_options;
  if (profile.streamUsage === 'usage-include' && out.stream === true) out.usage = { include: true };
  if (Array.isArray(out.messages)) out.messages = adaptMessages(out.messages as unknown[], profile);
  return out;
}

function moveMaxTokens(out: Json, profile: HostProfile): void {
  const value = out.max_completion_tokens ?? out.max_tokens;
  delete out.max_completion_tokens;
  delete out.max_tokens;
  if (value !== undefined && value !== null) out[profile.maxTokensField] = value;
}

function adaptReasoning(out: Json, profile: HostProfile, original: Json): void {
  if (profile.reasoning === 'object') {
    delete out.reasoning_effort;
    if (isObject(original.reasoning)) out.reasoning = original.reasoning;
    else if (typeof original.reasoning_effort === 'string') out.reasoning = { effort: original.reasoning_effort };
  } else if (profile.reasoning === 'none') {
    delete out.reasoning_effort;
  }
}

/**
 * A format the host lacks becomes the nearest one it has: `json_object` as a schema of any
 * object (LM Studio, Perplexity take schemas only); a schema as `json_object` plus the schema
 * in a system message (DeepSeek's JSON mode also wants the word "json" in the prompt).
 */
function adaptResponseFormat(out: Json, profile: HostProfile): void {
  const format = out.response_format;
  if (!isObject(format) || typeof format.type !== 'string' || format.type === 'text') return;
  const kind = format.type as 'json_object' | 'json_schema';
  if (profile.responseFormats.includes(kind)) return;
  if (kind === 'json_object' && profile.responseFormats.includes('json_schema')) {
    out.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } };
  } else if (kind === 'json_schema' && profile.responseFormats.includes('json_object')) {
    const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
    out.response_format = { type: 'json_object' };
    const instruction = `Answer with one JSON object${schema ? ` that matches this JSON schema: ${JSON.stringify(schema)}` : ''}.`;
    out.messages = [{ role: 'system', content: instruction }, ...((out.messages as unknown[] | undefined) ?? [])];
  } else {
    delete out.response_format;
  }
}

/** Assistant fields of the gateway's message shape that only OpenAI-shaped hosts read back. */
const ASSISTANT_EXTRAS = ['reasoning', 'reasoning_details', 'refusal', 'annotations', 'images', 'audio'];

function adaptMessages(messages: unknown[], profile: HostProfile): unknown[] {
  const ids = new Map<string, string>();
  const adapted = messages.map((raw) => {
    if (!isObject(raw)) return raw;
    const message: Json = { ...raw };
    if (message.role === 'developer' && !profile.developerRole) message.role = 'system';
    if (!profile.messageNames) delete message.name;
    if (message.role === 'assistant') adaptAssistant(message, profile, ids);
    if (message.role === 'tool' && profile.toolCallIds === 'alnum9' && typeof message.tool_call_id === 'string')
      message.tool_call_id = alnum9(message.tool_call_id, ids);
    return message;
  });
  return profile.alternatingRoles ? mergeSameRoleTurns(adapted) : adapted;
}

function adaptAssistant(message: Json, profile: HostProfile, ids: Map<string, string>): void {
  const reasoning = typeof message.reasoning === 'string' ? message.reasoning : undefined;
  // OpenRouter reads reasoning_details back (it relays them to the model that wrote them); other hosts take none.
  if (profile.reasoning !== 'object') for (const field of ASSISTANT_EXTRAS) delete message[field];
  if (profile.assistantReasoningField && reasoning !== undefined) message[profile.assistantReasoningField] = reasoning;
  if (profile.toolCallIds === 'alnum9' && Array.isArray(message.tool_calls)) {
    message.tool_calls = message.tool_calls.map((call) =>
      isObject(call) && typeof call.id === 'string' ? { ...call, id: alnum9(call.id, ids) } : call,
    );
  }
}

/** Mistral's tool call id rule; the same id always maps to the same 9 characters, so calls and results still pair. */
function alnum9(id: string, ids: Map<string, string>): string {
  if (/^[a-zA-Z0-9]{9}$/.test(id)) return id;
  let mapped = ids.get(id);
  if (mapped === undefined) {
    mapped = createHash('sha256').update(id).digest('hex').slice(0, 9);
    ids.set(id, mapped);
  }
  return mapped;
}

/** Consecutive user (or assistant) turns become one, their text joined, so the roles alternate. */
function mergeSameRoleTurns(messages: unknown[]): unknown[] {
  const merged: Json[] = [];
  for (const raw of messages) {
    if (!isObject(raw)) continue;
    const last = merged.at(-1);
    if (last && last.role === raw.role && raw.role !== 'system') {
      last.content = joinContent(last.content, raw.content);
      continue;
    }
    merged.push({ ...raw });
  }
  return merged;
}

function joinContent(a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  const parts = (value: unknown) => (Array.isArray(value) ? value : [{ type: 'text', text: String(value ?? '') }]);
  return [...parts(a), ...parts(b)];
}
