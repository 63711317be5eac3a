import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateEnv } from '@gw/config';
import { startSearchSimulator, type RunningSearchSimulator } from '@gw/search-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceEnv } from '../env.js';
import { BraveBackend, SearchBackendError, SearxngBackend } from './search-backends.js';

describe('search backends', () => {
  let sim: RunningSearchSimulator;
  let brave: Server;
  let braveUrl: string;
  const braveQueries: Array<{
    q: string | null;
    count: string | null;
    token: string | undefined;
    country?: string | null;
    city?: unknown;
  }> = [];

  beforeAll(async () => {
    sim = await startSearchSimulator();
    // Brave's wire format, as its API documents it (the hosted API is not reachable offline).
    brave = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      braveQueries.push({
        q: url.searchParams.get('q'),
        count: url.searchParams.get('count'),
        token: req.headers['x-subscription-token'] as string | undefined,
        ...(url.searchParams.has('country') ? { country: url.searchParams.get('country'), city: req.headers['x-loc-city'] } : {}),
      });
      if (req.headers['x-subscription-token'] !== 'brave-key') return void res.writeHead(401).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'search',
          web: {
            results: [
              { title: 'Zephyr', url: 'https://zephyr.example/', description: 'The <strong>Zephyr</strong> language' },
              { title: 'Two', url: 'https://two.example/', description: '' },
            ],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => brave.listen(0, '127.0.0.1', resolve));
    braveUrl = `http://127.0.0.1:${(brave.address() as AddressInfo).port}/res/v1/web/search`;
  });
  afterAll(async () => {
    await sim.close();
    brave.close();
  });

  it("SearXNG: the JSON API's results as title, url, snippet, ranked and capped", async () => {
    const results = await new SearxngBackend(sim.url).search('capital of Atlantis', 1);
    expect(results).toEqual([
      {
        title: 'Poseidonia, capital of Atlantis',
        url: `${sim.url}/pages/atlantis-capital`,
        snippet: 'Poseidonia is the capital of Atlantis, a fictional island nation used in this corpus.',
      },
    ]);
    await expect(new SearxngBackend('http://127.0.0.1:9/').search('x', 1)).rejects.toBeInstanceOf(SearchBackendError);
  });

  it('Brave: the key as X-Subscription-Token, markup stripped; a refused key is a backend error', async () => {
    expect(await new BraveBackend('brave-key', braveUrl).search('Zephyr', 1)).toEqual([
      { title: 'Zephyr', url: 'https://zephyr.example/', snippet: 'The Zephyr language' },
    ]);
    expect(braveQueries.at(-1)).toEqual({ q: 'Zephyr', count: '1', token: 'brave-key' });
    await expect(new BraveBackend('wrong', braveUrl).search('Zephyr', 1)).rejects.toThrow(/HTTP 401/);
  });

  it('allowed domains: site: operators in the query and a filter on the results; the location as Brave takes it', async () => {
    const host = new URL(sim.url).hostname;
    const searxng = new SearxngBackend(sim.url);
    expect((await searxng.search('capital of Atlantis', 5, undefined, { allowedDomains: [host] }))[0]?.url).toBe(
      `${sim.url}/pages/atlantis-capital`,
    );
    expect(await searxng.search('capital of Atlantis', 5, undefined, { allowedDomains: ['elsewhere.example'] })).toEqual([]);

    // Brave's mock ignores site: and answers two hosts: the filter keeps the allowed one.
    const results = await new BraveBackend('brave-key', braveUrl).search('Zephyr', 5, undefined, {
      allowedDomains: ['zephyr.example'],
      location: { country: 'gb', city: 'London', region: 'Zürich' },
    });
    expect(results.map((result) => result.url)).toEqual(['https://zephyr.example/']);
    expect(braveQueries.at(-1)).toEqual({ q: 'Zephyr site:zephyr.example', count: '5', token: 'brave-key', country: 'GB', city: 'London' });
  });

  it('the environment chooses the backend and refuses Brave without a key, at start', () => {
    const base = { DATABASE_URL: 'postgresql://x@127.0.0.1/db' };
    expect(validateEnv(InferenceEnv, base).SEARCH_BACKEND).toBe('searxng');
    expect(() => validateEnv(InferenceEnv, { ...base, SEARCH_BACKEND: 'brave' })).toThrow(/BRAVE_SEARCH_API_KEY/);
    expect(validateEnv(InferenceEnv, { ...base, SEARCH_BACKEND: 'brave', BRAVE_SEARCH_API_KEY: 'k' }).SEARCH_BACKEND).toBe('brave');
    expect(() => validateEnv(InferenceEnv, { ...base, SEARCH_BACKEND: 'google' })).toThrow(/SEARCH_BACKEND/);
    expect(() => validateEnv(InferenceEnv, { ...base, WEB_FETCH_ALLOWED_ORIGINS: '127.0.0.1:8792' })).toThrow(/WEB_FETCH_ALLOWED_ORIGINS/);
    expect(
      validateEnv(InferenceEnv, { ...base, WEB_FETCH_ALLOWED_ORIGINS: 'http://127.0.0.1:8792, http://[::1]:9' }).WEB_FETCH_ALLOWED_ORIGINS,
    ).toBeTruthy();
  });
});
