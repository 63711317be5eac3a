import type { ResponsesOutputItemView, ResponsesWebSearchCallItemView } from '@gw/contracts';
import type { ExecutedCall } from '../server-tools/server-tool-runner.service.js';
import type { SettledStep } from '../server-tools/server-tool-loop.js';
import type { ResponsesOptions } from './responses-request.js';
import { newItemId, outputItemsOf } from './responses-view.js';

/** A server tool call the gateway ran, as OpenAI's `web_search_call` item (a fetch is its `open_page` action). */
export function webSearchCallItem(call: ExecutedCall): ResponsesWebSearchCallItemView {
  const status = call.ok ? 'completed' : 'failed';
  if (call.kind === 'web_fetch')
    return { type: 'web_search_call', id: newItemId('ws'), status, action: { type: 'open_page', url: call.page?.url ?? call.url ?? '' } };
  const action: ResponsesWebSearchCallItemView['action'] = { type: 'search', query: call.query ?? '' };
  if (call.results) action.sources = call.results.map((result) => ({ type: 'url' as const, url: result.url }));
  return { type: 'web_search_call', id: newItemId('ws'), status, action };
}

/**
 * The output of a server-tool loop: for each step that ran server tools, what the model said
 * (reasoning, any text) and a web_search_call item per call it made, never a function_call
 * the client would have to answer; then the last step's items as for a single call.
 */
export function loopOutputItems(steps: readonly SettledStep[], options: ResponsesOptions): ResponsesOutputItemView[] {
  return steps.flatMap((step, index) => {
    if (index === steps.length - 1) return outputItemsOf(step.completion, options);
    const choice = step.completion.choices[0];
    const withoutCalls = choice
      ? { ...step.completion, choices: [{ ...choice, message: { ...choice.message, tool_calls: undefined } }] }
      : step.completion;
    const items = outputItemsOf(withoutCalls, options).filter(
      (item) => item.type !== 'message' || item.content.some((part) => (part.type === 'output_text' ? part.text.length > 0 : true)),
    );
    return [...items, ...step.executed.map(webSearchCallItem)];
  });
}
