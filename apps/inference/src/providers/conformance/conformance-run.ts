import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedUsage, ProviderAdapter } from '../provider-adapter.js';

/** What a conformance case may ask of an adapter beyond the plain answer. */
export type Capability =
  | 'reasoning-tokens'
  | 'safety-filter'
  | 'parallel-tools'
  | 'json-schema'
  | 'images'
  | 'tools'
  | 'cache-usage'
  /** The provider checks a credential (self-hosted Ollama and LM Studio take none). */
  | 'credential';

/**
 * One adapter as the conformance table runs it, against its provider's strict simulator. The
 * simulator's directives (`status=429`, `cut=2`, ...) ride on the upstream model name; what
 * differs between providers (how a credential is refused, the simulator's prompt count) is
 * declared here, never in the cases.
 */
export interface ConformanceSubject {
  name: string;
  adapter: ProviderAdapter;
  /** An endpoint on the simulator whose upstream model carries `directives`; `badCredential` makes the provider refuse it. */
  endpoint(directives: string, options?: { badCredential?: boolean }): RoutableEndpoint;
  capabilities: ReadonlySet<Capability>;
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
  finishReason: string | null;
  usage: NormalizedUsage | undefined;
}

export type Mode = 'complete' | 'stream';

/** Runs one body through the adapter in `mode`; a failure comes back as the UpstreamFailure it threw. */
export async function runBody(
  subject: ConformanceSubject,
  endpoint: RoutableEndpoint,
  body: Record<string, unknown>,
  mode: Mode,
): Promise<Collected | UpstreamFailure> {
  try {
    return mode === 'complete' ? await completeOnce(subject.adapter, endpoint, body) : await streamOnce(subject.adapter, endpoint, body);
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
    finishReason: choice.finish_reason,
    usage: completion.usage,
  };
}

/** Assembles a stream as a client would: content and reasoning concatenated, tool calls by index with their argument fragments. */
async function streamOnce(adapter: ProviderAdapter, endpoint: RoutableEndpoint, body: Record<string, unknown>): Promise<Collected> {
  const collected: Collected = { content: null, reasoning: null, refusal: null, toolCalls: [], finishReason: null, usage: undefined };
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const event of await adapter.stream(endpoint, { ...body, stream: true }, {})) {
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
      }
      if (choice.finish_reason) collected.finishReason = choice.finish_reason;
    }
  }
  collected.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  if (collected.content === '') collected.content = null;
  return collected;
}
