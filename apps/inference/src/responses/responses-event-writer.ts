import type {
  ResponsesWebSearchCallItemView,
  ResponsesImageItemView,
  ResponsesMessageItemView,
  ResponsesOutputItemView,
  ResponsesReasoningItemView,
  ResponsesResponseView,
} from '@gw/contracts';
import type { GatewayError } from '@gw/errors';
import type { StreamEvent } from '../providers/provider-adapter.js';
import { clientCallItem } from './client-tools.js';
import type { ResponsesOptions } from './responses-request.js';
import {
  failedState,
  imageItems,
  messageItem,
  newItemId,
  reasoningItem,
  responseObject,
  statusOf,
  toResponsesAnnotation,
  type ResponseHead,
} from './responses-view.js';

type Json = Record<string, unknown>;

interface OpenReasoning {
  kind: 'reasoning';
  index: number;
  id: string;
  text: string;
  details: Json[];
  partOpen: boolean;
}

interface OpenMessage {
  kind: 'message';
  index: number;
  id: string;
  text: string;
  refusal: string | null;
  annotations: unknown[];
  textPartOpen: boolean;
}

interface OpenCall {
  kind: 'function_call';
  index: number;
  id: string;
  callId: string;
  name: string;
  args: string;
}

type OpenItem = OpenReasoning | OpenMessage | OpenCall;

/**
 * Turns the pipeline's chat stream events into OpenAI's Responses semantic events,
 * each framed as SSE (`event: <type>` + `data: <json>`) with an increasing `sequence_number`:
 * response.created and .in_progress first; then per output item `output_item.added`, its
 * deltas (`reasoning_summary_*`, `content_part.*` + `output_text.*`, `function_call_arguments.*`)
 * and `output_item.done`; then `response.completed` or `.incomplete` with the whole response,
 * or `response.failed` (never a clean end after a failure). The final object holds exactly
 * the items the events announced, with the same ids, as the `openai` client checks.
 */
export class ResponsesEventWriter {
  private sequence = 0;
  private readonly output: ResponsesOutputItemView[] = [];
  private readonly open: OpenItem[] = [];
  private reasoning?: OpenReasoning;
  private message?: OpenMessage;
  private readonly calls = new Map<number, OpenCall>();
  private finishReason: string | null = null;
  private serviceTier: string | null = null;
  /** Fields every response snapshot carries beyond the state (routing metadata when opted in). */
  private extras: Json = {};

  constructor(
    private readonly head: ResponseHead,
    private readonly options: ResponsesOptions,
    private readonly emit: (frame: string) => void,
  ) {}

  /**
   * response.created and response.in_progress; `extras` (service_metadata) ride on every
   * response snapshot, `createdExtras` (the debug echo of the upstream body) on response.created only.
   */
  start(extras: Json = {}, createdExtras: Json = {}): void {
    this.extras = extras;
    const snapshot = this.snapshot('in_progress');
    this.send('response.created', { response: snapshot, ...createdExtras });
    this.send('response.in_progress', { response: snapshot });
  }

  add(event: StreamEvent): void {
    if (event.type !== 'chunk') return;
    if (event.serviceTier) this.serviceTier = event.serviceTier;
    const choice = event.choices.find((candidate) => candidate.index === 0);
    if (!choice) return;
    const delta = choice.delta;
    if (typeof delta.reasoning === 'string' && delta.reasoning.length > 0) this.reasoningText(delta.reasoning);
    if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length > 0)
      this.openReasoning().details.push(...(delta.reasoning_details as Json[]));
    if (typeof delta.content === 'string' && delta.content.length > 0) this.text(delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0) this.refusal(delta.refusal);
    if (Array.isArray(delta.annotations)) this.openMessage().annotations.push(...delta.annotations.map(toResponsesAnnotation));
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as Json[]) this.toolCall(call);
    if (Array.isArray(delta.images)) for (const image of imageItems(delta.images)) this.image(image);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** Closes every open item, then response.completed or response.incomplete with the usage. */
  finish(usage: ResponsesResponseView['usage']): ResponsesResponseView {
    this.closeAll();
    const { status, incomplete_details } = statusOf(this.finishReason);
    const response = this.snapshot(status, { usage, incomplete_details });
    this.send(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    return response;
  }

  /**
   * After a failure: an `error` event (the `openai` client throws on it, as on a failed chat
   * stream), then response.failed with what was produced so far, the error and its canonical
   * type, the last event, for clients that read on (the AI SDK, OpenRouter's).
   */
  fail(error: GatewayError, usage: ResponsesResponseView['usage'] = null): void {
    const { error: failure, errorType } = failedState(error);
    this.send('error', { code: errorType, message: error.message, param: null });
    const response = { ...this.snapshot('failed', { usage, error: failure, incompleteItems: true }), error_type: errorType };
    this.send('response.failed', { response });
  }

  /**
   * A server tool the gateway ran between two model calls: what the model said
   * before it is closed, then the web_search_call item with OpenAI's events; the next call's
   * text opens a new message item.
   */
  serverToolCall(item: ResponsesWebSearchCallItemView): void {
    this.closeAll();
    this.reasoning = undefined;
    this.message = undefined;
    this.calls.clear();
    const index = this.output.length;
    this.output.push(item);
    this.send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
    this.send('response.web_search_call.in_progress', { output_index: index, item_id: item.id });
    this.send('response.web_search_call.searching', { output_index: index, item_id: item.id });
    this.send('response.web_search_call.completed', { output_index: index, item_id: item.id });
    this.send('response.output_item.done', { output_index: index, item });
  }

  get started(): boolean {
    return this.sequence > 0;
  }

  private reasoningText(text: string): void {
    const item = this.openReasoning();
    if (!item.partOpen) {
      item.partOpen = true;
      this.send('response.reasoning_summary_part.added', {
        item_id: item.id,
        output_index: item.index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    item.text += text;
    this.send('response.reasoning_summary_text.delta', { item_id: item.id, output_index: item.index, summary_index: 0, delta: text });
  }

  private text(text: string): void {
    const item = this.openMessage();
    if (!item.textPartOpen) {
      item.textPartOpen = true;
      this.send('response.content_part.added', {
        item_id: item.id,
        output_index: item.index,
        content_index: this.textIndex(item),
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    item.text += text;
    this.send('response.output_text.delta', {
      item_id: item.id,
      output_index: item.index,
      content_index: this.textIndex(item),
      delta: text,
      logprobs: [],
    });
  }

  private refusal(text: string): void {
    const item = this.openMessage();
    if (item.refusal === null) {
      item.refusal = '';
      this.send('response.content_part.added', {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        part: { type: 'refusal', refusal: '' },
      });
    }
    item.refusal += text;
    this.send('response.refusal.delta', { item_id: item.id, output_index: item.index, content_index: 0, delta: text });
  }

  /** A tool-call fragment: the first one of an index (id and name) opens a function_call item. */
  private toolCall(fragment: Json): void {
    const index = typeof fragment.index === 'number' ? fragment.index : 0;
    const fn = (fragment.function ?? {}) as { name?: unknown; arguments?: unknown };
    let call = this.calls.get(index);
    if (!call) {
      this.closeReasoning();
      this.closeMessage();
      call = {
        kind: 'function_call',
        index: this.output.length,
        id: newItemId('fc'),
        callId: String(fragment.id ?? ''),
        name: String(fn.name ?? ''),
        args: '',
      };
      this.calls.set(index, call);
      this.addItem(call, clientCallItem(this.options.clientTools, call.id, call.callId, call.name, '', 'in_progress'));
    } else if (typeof fn.name === 'string' && call.name === '') {
      call.name = fn.name;
    }
    if (typeof fn.arguments === 'string' && fn.arguments.length > 0) {
      call.args += fn.arguments;
      // A custom or local_shell call's input is known whole only from its complete arguments.
      if (!this.options.clientTools.has(call.name) || this.options.clientTools.get(call.name)?.kind === 'function')
        this.send('response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: fn.arguments });
    }
  }

  /** A generated image arrives whole: its item is added and done at once. */
  private image(item: ResponsesImageItemView): void {
    this.closeReasoning();
    this.closeMessage();
    const index = this.output.length;
    this.output.push(item);
    this.send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', result: '' } });
    this.send('response.output_item.done', { output_index: index, item });
  }

  private openReasoning(): OpenReasoning {
    if (this.reasoning) return this.reasoning;
    const item: OpenReasoning = {
      kind: 'reasoning',
      index: this.output.length,
      id: newItemId('rs'),
      text: '',
      details: [],
      partOpen: false,
    };
    this.reasoning = item;
    this.addItem(item, { type: 'reasoning', id: item.id, summary: [] });
    return item;
  }

  private openMessage(): OpenMessage {
    if (this.message) return this.message;
    this.closeReasoning();
    const item: OpenMessage = {
      kind: 'message',
      index: this.output.length,
      id: newItemId('msg'),
      text: '',
      refusal: null,
      annotations: [],
      textPartOpen: false,
    };
    this.message = item;
    this.addItem(item, { type: 'message', id: item.id, role: 'assistant', status: 'in_progress', content: [] });
    return item;
  }

  private addItem(open: OpenItem, item: ResponsesOutputItemView): void {
    this.open.push(open);
    this.output.push(item);
    this.send('response.output_item.added', { output_index: open.index, item });
  }

  private textIndex(item: OpenMessage): number {
    return item.refusal === null ? 0 : 1;
  }

  private closeAll(): void {
    this.closeReasoning();
    this.closeMessage();
    for (const call of this.calls.values()) this.closeCall(call);
  }

  private closeReasoning(): void {
    const item = this.reasoning;
    if (!item || !this.isOpen(item)) return;
    if (item.partOpen) {
      this.send('response.reasoning_summary_text.done', { item_id: item.id, output_index: item.index, summary_index: 0, text: item.text });
      this.send('response.reasoning_summary_part.done', {
        item_id: item.id,
        output_index: item.index,
        summary_index: 0,
        part: { type: 'summary_text', text: item.text },
      });
    }
    this.done(item, reasoningItem(item.id, item.text, item.details, this.options));
  }

  private closeMessage(): void {
    const item = this.message;
    if (!item || !this.isOpen(item)) return;
    const status = statusOf(this.finishReason).status === 'incomplete' ? 'incomplete' : 'completed';
    const final: ResponsesMessageItemView = messageItem(item.id, item.text, item.annotations, item.refusal, status);
    if (item.refusal !== null) {
      this.send('response.refusal.done', { item_id: item.id, output_index: item.index, content_index: 0, refusal: item.refusal });
      this.send('response.content_part.done', {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        part: { type: 'refusal', refusal: item.refusal },
      });
    }
    if (item.textPartOpen) {
      const part = { type: 'output_text', text: item.text, annotations: item.annotations, logprobs: [] };
      this.send('response.output_text.done', {
        item_id: item.id,
        output_index: item.index,
        content_index: this.textIndex(item),
        text: item.text,
        logprobs: [],
      });
      this.send('response.content_part.done', { item_id: item.id, output_index: item.index, content_index: this.textIndex(item), part });
    } else if (item.refusal === null) {
      final.content = [];
    }
    this.done(item, final);
  }

  private closeCall(call: OpenCall): void {
    if (!this.isOpen(call)) return;
    const item = clientCallItem(this.options.clientTools, call.id, call.callId, call.name, call.args, 'completed');
    if (item.type === 'function_call')
      this.send('response.function_call_arguments.done', {
        item_id: call.id,
        output_index: call.index,
        name: item.name,
        arguments: call.args,
      });
    else if (item.type === 'custom_tool_call') {
      this.send('response.custom_tool_call_input.delta', { item_id: call.id, output_index: call.index, delta: item.input });
      this.send('response.custom_tool_call_input.done', { item_id: call.id, output_index: call.index, input: item.input });
    }
    this.done(call, item);
  }

  private isOpen(item: OpenItem): boolean {
    return this.open.includes(item);
  }

  private done(open: OpenItem, item: ResponsesOutputItemView | ResponsesReasoningItemView): void {
    this.open.splice(this.open.indexOf(open), 1);
    this.output[open.index] = item;
    this.send('response.output_item.done', { output_index: open.index, item });
  }

  private snapshot(
    status: ResponsesResponseView['status'],
    state: {
      usage?: ResponsesResponseView['usage'];
      incomplete_details?: ResponsesResponseView['incomplete_details'];
      error?: ResponsesResponseView['error'];
      incompleteItems?: boolean;
    } = {},
  ): ResponsesResponseView {
    // A failed response lists what was produced; items still open are marked incomplete.
    const stillOpen = (index: number) => this.open.some((open) => open.index === index);
    const output = state.incompleteItems
      ? this.output.map((item, index): ResponsesOutputItemView =>
          (item.type === 'message' ||
            item.type === 'function_call' ||
            item.type === 'custom_tool_call' ||
            item.type === 'local_shell_call') &&
          stillOpen(index)
            ? { ...item, status: 'incomplete' }
            : item,
        )
      : [...this.output];
    const response = responseObject(this.head, {
      status,
      output,
      usage: state.usage ?? null,
      error: state.error ?? null,
      incomplete_details: state.incomplete_details ?? null,
      serviceTier: this.serviceTier,
    });
    return { ...response, ...this.extras };
  }

  private send(type: string, payload: Json): void {
    const sequence_number = this.sequence++;
    this.emit(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number, ...payload })}\n\n`);
  }
}
