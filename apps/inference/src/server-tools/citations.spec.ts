import { describe, expect, it } from 'vitest';
import { urlCitations } from './citations.js';
import { sumUsageViews } from './usage-sum.js';

describe('url citations', () => {
  const sources = [
    { url: 'http://s/a', title: 'A', snippet: 'about a' },
    { url: 'http://s/ab', title: 'AB' },
  ];

  it('cites Markdown links as a whole and bare URLs, in text order, not prefixes of longer URLs', () => {
    const text = 'See [A](http://s/a). Also http://s/ab and http://s/a.';
    expect(urlCitations(text, sources)).toEqual([
      { type: 'url_citation', url_citation: { url: 'http://s/a', title: 'A', start_index: 4, end_index: 19, content: 'about a' } },
      { type: 'url_citation', url_citation: { url: 'http://s/ab', title: 'AB', start_index: 26, end_index: 37 } },
      { type: 'url_citation', url_citation: { url: 'http://s/a', title: 'A', start_index: 42, end_index: 52, content: 'about a' } },
    ]);
    expect(text.slice(4, 19)).toBe('[A](http://s/a)');
    expect(urlCitations('nothing cited', sources)).toEqual([]);
  });
});

describe('usage sums', () => {
  it('adds counts and costs field by field, nested too, without float drift', () => {
    const one = {
      prompt_tokens: 1,
      cost: 0.1,
      is_byok: false,
      details: { a: 1, b: null as number | null },
      server_tool_use: { web_search_requests: 1 },
    };
    const two = {
      prompt_tokens: 2,
      cost: 0.2,
      is_byok: false,
      details: { a: 2, b: 3 as number | null },
      server_tool_use: { web_search_requests: 0 },
    };
    expect(sumUsageViews([one, two])).toEqual({
      prompt_tokens: 3,
      cost: 0.3,
      is_byok: false,
      details: { a: 3, b: 3 },
      server_tool_use: { web_search_requests: 1 },
    });
  });
});
