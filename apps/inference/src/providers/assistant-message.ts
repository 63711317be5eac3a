import type { AnnotationView, ChatResponseMessageView, ChatToolCallView, LogprobEntryView } from '@gw/contracts';

type Json = Record<string, unknown>;

/**
 * An OpenAI-compatible host's assistant message in spec §2.1's shape, field by field: nothing a
 * host adds of its own (vLLM's `reasoning_content`, a vendor's extra keys) leaks through, and
 * what the spec names is always typed the same way whichever provider answered.
 */
export function normalizeAssistantMessage(raw: Json): ChatResponseMessageView {
  const message: ChatResponseMessageView = { role: 'assistant', content: contentText(raw.content), refusal: stringOrNull(raw.refusal) };
  const reasoning = stringOrNull(raw.reasoning) ?? stringOrNull(raw.reasoning_content);
  if (reasoning !== null) message.reasoning = reasoning;
  if (Array.isArray(raw.reasoning_details)) message.reasoning_details = raw.reasoning_details.filter(isObject);
  const toolCalls = normalizeToolCalls(raw.tool_calls);
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const annotations = normalizeAnnotations(raw.annotations);
  if (annotations.length > 0) message.annotations = annotations;
  const images = normalizeImages(raw.images);
  if (images.length > 0) message.images = images;
  if (isObject(raw.audio)) message.audio = raw.audio;
  return message;
}

/**
 * A streamed delta of an OpenAI-compatible host, with the same filter as a whole message: the
 * spec's fields only, `reasoning_content` as `reasoning`, annotations of the three kinds. Tool
 * call fragments keep their own shape (`arguments` arrives in pieces).
 */
export function normalizeDelta(raw: Json): Json {
  const delta: Json = {};
  for (const field of ['role', 'content', 'refusal', 'reasoning_details', 'audio'] as const) {
    if (raw[field] !== undefined) delta[field] = raw[field];
  }
  if (raw.tool_calls !== undefined)
    delta.tool_calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.map(functionFragment) : raw.tool_calls;
  const reasoning = raw.reasoning ?? raw.reasoning_content;
  if (typeof reasoning === 'string' || reasoning === null) delta.reasoning = reasoning;
  if (raw.annotations !== undefined) delta.annotations = normalizeAnnotations(raw.annotations);
  if (raw.images !== undefined) delta.images = normalizeImages(raw.images);
  return delta;
}

/**
 * Tool calls with `index` on every entry (OpenAI omits it outside streams) and string arguments.
 * A custom tool's call (`type: "custom"`) is a function call in the gateway, its raw input the arguments.
 */
function normalizeToolCalls(value: unknown): ChatToolCallView[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((call, position) => {
    const fn = isObject(call.custom)
      ? { name: call.custom.name, arguments: String(call.custom.input ?? '') }
      : isObject(call.function)
        ? call.function
        : {};
    const args = fn.arguments;
    return {
      index: typeof call.index === 'number' ? call.index : position,
      id: String(call.id ?? ''),
      type: 'function' as const,
      function: { name: String(fn.name ?? ''), arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
  });
}

/** A streamed custom tool call's fragment as a function call's: its input pieces are the arguments. */
function functionFragment(call: unknown): unknown {
  if (!isObject(call) || !isObject(call.custom)) return call;
  const { custom, ...rest } = call;
  const fn: Json = {};
  if (custom.name !== undefined) fn.name = custom.name;
  if (custom.input !== undefined) fn.arguments = custom.input;
  return { ...rest, ...(rest.type !== undefined ? { type: 'function' } : {}), function: fn };
}

/** The three annotation kinds of spec §2.1; anything else a host invents is left out. */
export function normalizeAnnotations(value: unknown): AnnotationView[] {
  if (!Array.isArray(value)) return [];
  const out: AnnotationView[] = [];
  for (const entry of value.filter(isObject)) {
    if (entry.type === 'url_citation' && isObject(entry.url_citation) && typeof entry.url_citation.url === 'string') {
      const c = entry.url_citation;
      out.push({
        type: 'url_citation',
        url_citation: {
          url: c.url as string,
          title: typeof c.title === 'string' ? c.title : '',
          start_index: integer(c.start_index),
          end_index: integer(c.end_index),
          ...(typeof c.content === 'string' ? { content: c.content } : {}),
        },
      });
    } else if (
      entry.type === 'web_search_citation' &&
      isObject(entry.web_search_citation) &&
      typeof entry.web_search_citation.url === 'string'
    ) {
      out.push({ type: 'web_search_citation', web_search_citation: webSearchCitation(entry.web_search_citation) });
    } else if (entry.type === 'file' && isObject(entry.file) && typeof entry.file.hash === 'string') {
      const f = entry.file;
      out.push({
        type: 'file',
        file: { hash: f.hash as string, content: f.content ?? null, ...(typeof f.name === 'string' ? { name: f.name } : {}) },
      });
    }
  }
  return out;
}

/** Anthropic's `web_search_result_location` citation (and the same fields under our own kind). */
export function webSearchCitation(c: Json): Extract<AnnotationView, { type: 'web_search_citation' }>['web_search_citation'] {
  return {
    url: String(c.url),
    title: typeof c.title === 'string' ? c.title : null,
    ...(typeof c.cited_text === 'string' ? { cited_text: c.cited_text } : {}),
    ...(typeof c.encrypted_index === 'string' ? { encrypted_index: c.encrypted_index } : {}),
  };
}

function normalizeImages(value: unknown): NonNullable<ChatResponseMessageView['images']> {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isObject)
    .map((image) => (isObject(image.image_url) ? image.image_url.url : undefined))
    .filter((url): url is string => typeof url === 'string' && url.length > 0)
    .map((url) => ({ type: 'image_url' as const, image_url: { url } }));
}

/** Logprob entries in spec §2.1's shape: token, bytes, logprob, top_logprobs (not nested further). */
export function normalizeLogprobs(value: unknown): LogprobEntryView[] | null {
  if (!Array.isArray(value)) return null;
  return value.filter(isObject).map((entry) => {
    const view: LogprobEntryView = { ...logprobEntry(entry) };
    view.top_logprobs = Array.isArray(entry.top_logprobs) ? entry.top_logprobs.filter(isObject).map(logprobEntry) : [];
    return view;
  });
}

function logprobEntry(entry: Json): Omit<LogprobEntryView, 'top_logprobs'> {
  return {
    token: String(entry.token ?? ''),
    bytes: Array.isArray(entry.bytes) && entry.bytes.every((b) => typeof b === 'number') ? (entry.bytes as number[]) : null,
    logprob: typeof entry.logprob === 'number' ? entry.logprob : 0,
  };
}

/** A string, or the text parts of a content array (some hosts answer with parts), or null. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const text = content
      .filter(isObject)
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string);
    return text.length > 0 ? text.join('') : null;
  }
  return null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function integer(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
