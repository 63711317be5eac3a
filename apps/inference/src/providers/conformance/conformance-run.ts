import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedUsage, ProviderAdapter } from '../provider-adapter.js';

/** What a conformance case may ask of an adapter beyond the plain answer. */
export type Capability =
  | 'reasoning-tokens'
  | 'parallel-tools'
  | 'streamed-tool-args'
  | 'json-schema'
  | 'images'
  | 'tools'
  | 'cache-usage'
  | 'cache-write'
  /** The provider checks a credential (self-hosted Ollama and LM Studio take none). */
  | 'credential'
  /** A filtered answer comes back as a refusal with no content (Gemini's safety ratings). */
  | 'filter-refusal';

/** The error cases, each produced on the simulator by a directive (DEFAULT_FAULTS, or the subject's own). */
export type Fault =
  | 'permission-denied'
  | 'rate-limit'
  | 'quota'
  | 'context'
  | 'overloaded'
  | 'server-error'
  | 'timeout'
  | 'cut'
  | 'stream-error'
  | 'answer-filter'
  | 'prompt-filter';

/** How the gateway must report a failure: the client's status and canonical type (spec §7.3), whether routing may try elsewhere. */
export interface ExpectedFailure {
  status: number;
  errorType: string;
  retryable?: boolean;
  retryAfter?: number;
}

/** The directive that makes an OpenAI-, Anthropic- or Google-format simulator produce each fault. */
export const DEFAULT_FAULTS: Record<Fault, string> = {
  'permission-denied': 'status=403',
  'rate-limit': 'status=429;retry-after=7',
  quota: 'status=429;quota=1',
  context: 'context=5',
  overloaded: 'status=529',
  'server-error': 'status=500',
  timeout: 'status=504',
  cut: 'cut=2',
  'stream-error': 'stream-error=2',
  'answer-filter': 'safety-block=2',
  'prompt-filter': 'safety-block=1',
};

/**
 * One adapter as the conformance table runs it, against its provider's strict simulator. The
 * simulator's directives (`status=429`, `cut=2`, ...) ride on the upstream model name; what
 * differs between providers (how a credential is refused, the simulator's prompt count, the
 * directive of a fault, what a fault maps to) is declared here, never in the cases.
 */
export interface ConformanceSubject {
  name: string;
  adapter: ProviderAdapter;
  /** An endpoint on the simulator whose upstream model carries `directives`; `badCredential` makes the provider refuse it. */
  endpoint(directives: string, options?: { badCredential?: boolean }): RoutableEndpoint;
  /** What this provider (or its simulator) cannot do, each with the reason: the cases that need it are skipped, saying why. */
  lacks: Partial<Record<Capability | Fault, string>>;
  /** The directive of a fault where the provider's simulator takes another one than DEFAULT_FAULTS'. */
  faults?: Partial<Record<Fault, string>>;
  /** What a fault maps to where the provider's own error class differs from the table's default. */
  failures?: Partial<Record<Fault, ExpectedFailure>>;
  /** Prompt tokens the simulator reports for the plain conversation (each wire format counts its own framing). */
  plainPromptTokens: number;
  /** How this provider's mid-stream error event maps (its simulator sends its own kind of error). */
  streamError: { status: number; errorType: string };
}

/** An answer, streamed or not, reduced to what the cases check. */
export interface Collected {
  content: string | null;
  reasoning: string | null;
  refusal: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Streamed: the tool-call deltas in order of arrival (id and name first, then argument fragments). */
  toolCallDeltas: Array<{ index: number; id?: string; name?: string; arguments: string }>;
  finishReason: string | null;
  usage: NormalizedUsage | undefined;
  /** Streamed: how many events arrived. */
  events: number;
}

export type Mode = 'complete' | 'stream';

/** Runs one body through the adapter in `mode`; a failure comes back as the UpstreamFailure it threw. */
export async function runBody(
  subject: ConformanceSubject,
  endpoint: RoutableEndpoint,
  body: Record<string, unknown>,
  mode: Mode,
  options: { cancelAfter?: number; seen?: { events: number } } = {},
): Promise<Collected | UpstreamFailure> {
  try {
    return mode === 'complete'
      ? await completeOnce(subject.adapter, endpoint, body)
      : await streamOnce(subject.adapter, endpoint, body, options);
  } catch (error) {
    if (error instanceof UpstreamFailure) return error;
    throw error;
  }
}

async function completeOnce(adapter: ProviderAdapter, endpoint: RoutableEndpoint, body: Record<string, unknown>): Promise<Collected> {
  const completion = await adapter.complete(endpoint, body, {});
  const choice = completion.choices[0]!;
  const message = choice.message as typeof choice.message & { reasoning?: string | null };
  return {
    content: message.content ?? null,
    reasoning: message.reasoning ?? null,
    refusal: message.refusal ?? null,
    toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    toolCallDeltas: [],
    finishReason: choice.finish_reason,
    usage: completion.usage,
    events: 1,
  };
}

/**
 * Assembles a stream as a client would: content and reasoning concatenated, tool calls by index
 * with their argument fragments. `cancelAfter` events, the client goes away (its signal aborts).
 */
async function streamOnce(
  adapter: ProviderAdapter,
  endpoint: RoutableEndpoint,
  body: Record<string, unknown>,
  options: { cancelAfter?: number; seen?: { events: number } },
): Promise<Collected> {
  const collected: Collected = {
    content: null,
    reasoning: null,
    refusal: null,
    toolCalls: [],
    toolCallDeltas: [],
    finishReason: null,
    usage: undefined,
    events: 0,
  };
  const seen = options.seen ?? { events: 0 };
  const controller = new AbortController();
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const event of await adapter.stream(endpoint, { ...body, stream: true }, { signal: controller.signal })) {
    collected.events = ++seen.events;
    if (seen.events === options.cancelAfter) controller.abort();
    if (event.type === 'usage') {
      collected.usage = event.usage;
      continue;
    }
    for (const choice of event.choices.filter((c) => c.index === 0)) {
      const delta = choice.delta as Record<string, unknown>;
      if (typeof delta.content === 'string') collected.content = (collected.content ?? '') + delta.content;
      if (typeof delta.reasoning === 'string') collected.reasoning = (collected.reasoning ?? '') + delta.reasoning;
      if (typeof delta.refusal === 'string') collected.refusal = (collected.refusal ?? '') + delta.refusal;
      for (const call of (delta.tool_calls ?? []) as Array<Record<string, unknown>>) {
        const index = call.index as number;
        const fn = (call.function ?? {}) as { name?: string; arguments?: string };
        const known = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (typeof call.id === 'string') known.id = call.id;
        if (fn.name) known.name = fn.name;
        known.arguments += fn.arguments ?? '';
        calls.set(index, known);
        collected.toolCallDeltas.push({
          index,
          ...(typeof call.id === 'string' ? { id: call.id } : {}),
          ...(fn.name ? { name: fn.name } : {}),
          arguments: fn.arguments ?? '',
        });
      }
      if (choice.finish_reason) collected.finishReason = choice.finish_reason;
    }
  }
  collected.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  if (collected.content === '') collected.content = null;
  return collected;
}
