import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearchSimulator, type RunningSearchSimulator } from './index.ts';
import { rank } from './search.ts';

describe('search simulator', () => {
  let sim: RunningSearchSimulator;
  beforeAll(async () => {
    sim = await startSearchSimulator();
  });
  afterAll(() => sim.close());

  it('ranks deterministically: title matches first, ties by slug', () => {
    expect(rank('capital of Atlantis').map((entry) => entry.page.slug)).toEqual(['atlantis-capital', 'atlantis-history']);
    expect(rank('capital of Atlantis')).toEqual(rank('capital of Atlantis'));
    expect(rank('nothing matches xyzzy')).toEqual([]);
  });

  it("speaks SearXNG's JSON API, with page URLs under the address it was called on", async () => {
    const response = await fetch(`${sim.url}/search?q=${encodeURIComponent('Zephyr language')}&format=json`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { query: string; results: Array<Record<string, unknown>> };
    expect(body.query).toBe('Zephyr language');
    expect(body.results[0]).toMatchObject({
      url: `${sim.url}/pages/zephyr-language`,
      title: 'The Zephyr programming language',
      engine: 'simulator',
      score: 1,
    });
    expect(Object.keys(body.results[0]!)).toEqual(expect.arrayContaining(['url', 'title', 'content', 'engine', 'score']));
    expect((await fetch(`${sim.url}/search?q=x`)).status).toBe(403);
    expect((await fetch(`${sim.url}/search?format=json`)).status).toBe(400);
  });

  it('reads site: operators as its engines would: every page lives on its own host', async () => {
    const search = async (q: string) =>
      ((await (await fetch(`${sim.url}/search?q=${encodeURIComponent(q)}&format=json`)).json()) as { results: Array<{ url: string }> })
        .results;
    const host = new URL(sim.url).hostname;
    expect((await search(`capital of Atlantis site:${host}`))[0]?.url).toBe(`${sim.url}/pages/atlantis-capital`);
    expect(await search('capital of Atlantis site:elsewhere.example OR site:other.example')).toEqual([]);
  });

  it('serves the pages as HTML, and redirects', async () => {
    const page = await fetch(`${sim.url}/pages/atlantis-capital`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('<p>Poseidonia is the capital of Atlantis');
    const redirect = await fetch(`${sim.url}/redirect?to=${encodeURIComponent('http://127.0.0.1:1/')}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://127.0.0.1:1/');
  });
});

describe('pages as PDFs', () => {
  it('serves a corpus page as a PDF whose text layer pdf.js reads', async () => {
    const { extractText } = await import('unpdf');
    const sim = await startSearchSimulator();
    try {
      const response = await fetch(`${sim.url}/pages/zephyr-language.pdf`);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const { text } = await extractText(new Uint8Array(await response.arrayBuffer()), { mergePages: true });
      expect(text).toContain('The Zephyr programming language');
      expect((await fetch(`${sim.url}/pages/nothing.pdf`)).status).toBe(404);
    } finally {
      await sim.close();
    }
  });
});
