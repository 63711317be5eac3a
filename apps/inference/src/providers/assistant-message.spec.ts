import { describe, expect, it } from 'vitest';
import { normalizeAnnotations, normalizeAssistantMessage, normalizeDelta, normalizeLogprobs } from './assistant-message.js';

describe('assistant message in spec §2.1 shape', () => {
  it("keeps the spec's fields and drops what a host adds of its own", () => {
    const message = normalizeAssistantMessage({
      role: 'assistant',
      content: 'Hi',
      refusal: null,
      reasoning_content: 'thought',
      vendor_extra: { secret: 1 },
      audio: { id: 'audio_1', data: 'AAA', expires_at: 1, transcript: 'Hi' },
    });
    expect(message).toEqual({
      role: 'assistant',
      content: 'Hi',
      refusal: null,
      reasoning: 'thought',
      audio: { id: 'audio_1', data: 'AAA', expires_at: 1, transcript: 'Hi' },
    });
  });

  it('gives every tool call an index and string arguments', () => {
    const message = normalizeAssistantMessage({
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'call_2', type: 'function', function: { name: 'b', arguments: { y: 2 } } },
      ],
    });
    expect(message.tool_calls).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
      { index: 1, id: 'call_2', type: 'function', function: { name: 'b', arguments: '{"y":2}' } },
    ]);
  });

  it('keeps the three annotation kinds and nothing else', () => {
    const annotations = normalizeAnnotations([
      { type: 'url_citation', url_citation: { url: 'https://a.example', title: 'A', start_index: 0, end_index: 4, extra: 1 } },
      { type: 'web_search_citation', web_search_citation: { url: 'https://b.example', title: null, cited_text: 'b' } },
      { type: 'file', file: { hash: 'h', content: [{ type: 'text', text: 'x' }], name: 'f.pdf' } },
      { type: 'container_file_citation', container_id: 'c' },
    ]);
    expect(annotations).toEqual([
      { type: 'url_citation', url_citation: { url: 'https://a.example', title: 'A', start_index: 0, end_index: 4 } },
      { type: 'web_search_citation', web_search_citation: { url: 'https://b.example', title: null, cited_text: 'b' } },
      { type: 'file', file: { hash: 'h', content: [{ type: 'text', text: 'x' }], name: 'f.pdf' } },
    ]);
  });

  it('keeps images with a URL, and text parts of a content array as the content', () => {
    const message = normalizeAssistantMessage({
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      images: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
        { type: 'image_url', image_url: {} },
      ],
    });
    expect(message.content).toBe('ab');
    expect(message.images).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }]);
  });

  it('writes logprob entries as token, bytes, logprob and un-nested top_logprobs', () => {
    expect(
      normalizeLogprobs([
        {
          token: 'Hi',
          bytes: [72, 105],
          logprob: -0.1,
          top_logprobs: [{ token: 'Hi', bytes: [72, 105], logprob: -0.1, top_logprobs: [] }],
        },
      ]),
    ).toEqual([{ token: 'Hi', bytes: [72, 105], logprob: -0.1, top_logprobs: [{ token: 'Hi', bytes: [72, 105], logprob: -0.1 }] }]);
    expect(normalizeLogprobs(null)).toBeNull();
  });

  it('filters a streamed delta the same way, keeping tool call fragments as they are', () => {
    expect(
      normalizeDelta({
        role: 'assistant',
        content: 'Hi',
        reasoning_content: 'hmm',
        provider_specific: 1,
        tool_calls: [{ index: 0, function: { arguments: '{"a' } }],
        annotations: [
          { type: 'url_citation', url_citation: { url: 'https://x.example', title: 'X', start_index: 0, end_index: 1 } },
          { type: 'other' },
        ],
      }),
    ).toEqual({
      role: 'assistant',
      content: 'Hi',
      reasoning: 'hmm',
      tool_calls: [{ index: 0, function: { arguments: '{"a' } }],
      annotations: [{ type: 'url_citation', url_citation: { url: 'https://x.example', title: 'X', start_index: 0, end_index: 1 } }],
    });
  });
});
