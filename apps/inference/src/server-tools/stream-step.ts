import type { ChatToolCallView } from '@gw/contracts';
import type { OpenedStream } from '../shared-pipeline/model-calls.service.js';
import { StreamTally } from '../shared-pipeline/stream-tally.js';
import type { NormalizedCompletion, StreamEvent } from '../providers/provider-adapter.js';

type Json = Record<string, unknown>;
type ChunkEvent = Extract<StreamEvent, { type: 'chunk' }>;

/**
 * One streamed model call of the server-tool loop: what the model writes (text,
 * reasoning) is handed to `forward` as it arrives, without tool call fragments or a finish
 * reason (the loop decides what the client sees of those once the call is over); the whole
 * answer is put together as a NormalizedCompletion for the loop, with the provider's usage or
 * an estimate.
 */
export async function drainStep(
  opened: OpenedStream,
  body: Record<string, unknown>,
  forward: (event: ChunkEvent) => void,
): Promise<NormalizedCompletion> {
  const tally = new StreamTally();
  let content = '';
  let reasoning = '';
  let refusal: string | null = null;
  const reasoningDetails: Json[] = [];
  const calls = new Map<number, ChatToolCallView>();
  let finishReason: string | null = null;
  let nativeFinishReason: string | null = null;
  let systemFingerprint: string | null = null;
  let serviceTier: string | null = null;
  for (let next = opened.first; !next.done; next = await opened.events.next()) {
    const event = next.value;
    tally.add(event);
    if (event.type !== 'chunk') continue;
    if (event.systemFingerprint) systemFingerprint = event.systemFingerprint;
    if (event.serviceTier) serviceTier = event.serviceTier;
    const choice = event.choices.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    const { tool_calls: fragments, ...delta } = choice.delta as Json;
    if (typeof delta.content === 'string') content += delta.content;
    if (typeof delta.reasoning === 'string') reasoning += delta.reasoning;
    if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
    if (Array.isArray(delta.reasoning_details)) reasoningDetails.push(...(delta.reasoning_details as Json[]));
    if (Array.isArray(fragments)) {
      for (const fragment of fragments as Json[]) {
        const index = typeof fragment.index === 'number' ? fragment.index : calls.size;
        const fn = (fragment.function ?? {}) as Json;
        const call = calls.get(index) ?? { index, id: '', type: 'function' as const, function: { name: '', arguments: '' } };
        if (typeof fragment.id === 'string' && fragment.id) call.id = fragment.id;
        if (typeof fn.name === 'string') call.function.name += fn.name;
        if (typeof fn.arguments === 'string') call.function.arguments += fn.arguments;
        calls.set(index, call);
      }
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
    if (choice.native_finish_reason) nativeFinishReason = choice.native_finish_reason;
    const meaningful =
      (['content', 'reasoning', 'refusal'] as const).some((key) => typeof delta[key] === 'string' && (delta[key] as string).length > 0) ||
      (['reasoning_details', 'annotations', 'images'] as const).some(
        (key) => Array.isArray(delta[key]) && (delta[key] as unknown[]).length > 0,
      );
    if (meaningful) forward({ ...event, choices: [{ ...choice, delta, finish_reason: null, native_finish_reason: null }] });
  }
  const message: NormalizedCompletion['choices'][number]['message'] & Json = {
    role: 'assistant',
    content: content.length > 0 ? content : null,
    refusal,
  };
  if (reasoning) message.reasoning = reasoning;
  if (reasoningDetails.length > 0) message.reasoning_details = reasoningDetails;
  if (calls.size > 0) message.tool_calls = [...calls.values()].sort((a, b) => a.index - b.index);
  return {
    upstreamId: null,
    systemFingerprint,
    serviceTier,
    choices: [{ index: 0, message, finish_reason: finishReason, native_finish_reason: nativeFinishReason, logprobs: null }],
    usage: tally.usage(body),
  };
}
