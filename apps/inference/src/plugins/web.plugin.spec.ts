import { describe, expect, it } from 'vitest';
import { urlsToFetch, withFetchedPages } from './web-fetch.plugin.js';
import { filterResults, searchQueryOf, withSearchResults } from './web.plugin.js';

const results = [
  { title: 'Rust', url: 'https://rust.example.com/book', snippet: 'The Rust book' },
  { title: 'Blog', url: 'https://blog.other.test/rust', snippet: 'A blog' },
];

describe('web', () => {
  it('searches with the last user message and puts the results before it, as Markdown links to cite', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is   Rust?' }] },
    ];
    expect(searchQueryOf(messages)).toBe('What is Rust?');
    const searched = withSearchResults(messages, results, { maxResults: 5 });
    expect(searched.messages).toHaveLength(3);
    expect(searched.messages[1]).toMatchObject({ role: 'system' });
    expect(searched.messages[1]!.content).toContain('IMPORTANT: Cite them using markdown links');
    expect(searched.messages[1]!.content).toContain('1. [Rust](https://rust.example.com/book)\nThe Rust book');
    expect(searched.messages[2]).toBe(messages[1]);
    expect(searched.sources).toEqual([
      { url: 'https://rust.example.com/book', title: 'Rust', snippet: 'The Rust book' },
      { url: 'https://blog.other.test/rust', title: 'Blog', snippet: 'A blog' },
    ]);
    expect(withSearchResults(messages, results, { maxResults: 5, searchPrompt: 'Sources:' }).messages[1]!.content).toMatch(
      /^Sources:\n\n1\. /,
    );
  });

  it('keeps results by include_domains / exclude_domains (wildcards, path prefixes)', () => {
    expect(filterResults(results, { maxResults: 5, includeDomains: ['*.example.com'] }).map((result) => result.title)).toEqual(['Rust']);
    expect(filterResults(results, { maxResults: 5, excludeDomains: ['other.test/rust'] }).map((result) => result.title)).toEqual(['Rust']);
    expect(filterResults(results, { maxResults: 5, includeDomains: ['other.test/blog'] })).toEqual([]);
  });
});

describe('web-fetch', () => {
  it('takes the URLs of the last user message, without trailing punctuation or duplicates', () => {
    expect(urlsToFetch([{ role: 'user', content: 'Read https://a.test/x, then https://b.test/y. And https://a.test/x!' }])).toEqual([
      'https://a.test/x',
      'https://b.test/y',
    ]);
  });

  it('hands the pages (and why others could not be fetched) to the model, cut at max_content_tokens', () => {
    const fetched = withFetchedPages(
      [{ role: 'user', content: 'Read https://a.test/x' }],
      [
        { url: 'https://a.test/x', page: { url: 'https://a.test/final', status: 200, title: 'A', text: 'abcdefghij', truncated: false } },
        { url: 'http://127.0.0.1/', error: 'refused: loopback' },
      ],
      { maxUses: 5, maxContentTokens: 1 },
    );
    expect(fetched.messages[0]!.content).toContain('[A](https://a.test/final)\nabcd...');
    expect(fetched.messages[0]!.content).toContain('(could not be fetched: refused: loopback)');
    expect(fetched.sources.map((source) => source.url)).toEqual(['https://a.test/final', 'https://a.test/x']);
  });
});
