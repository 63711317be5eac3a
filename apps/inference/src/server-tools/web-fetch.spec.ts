import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './address-rules.js';
import { htmlToText } from './html-text.js';
import { WebFetcher, WebFetchError } from './web-fetch.js';

/** A local HTTP server; `hits` counts the requests that reached it. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; origin: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

async function refusal(promise: Promise<unknown>): Promise<WebFetchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebFetchError);
  return error as WebFetchError;
}

describe('web_fetch SSRF rules', () => {
  let allowed: Awaited<ReturnType<typeof serve>>;
  let other: Awaited<ReturnType<typeof serve>>;
  let fetcher: WebFetcher;

  beforeAll(async () => {
    other = await serve((_req, res) => res.end('<p>secret internal service</p>'));
    allowed = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<html><head><title>A &amp; B</title><script>evil()</script></head><body><nav>menu</nav><h1>Hello</h1><p>First&nbsp;para.</p><p>Second</p></body></html>',
        );
      }
      if (url.pathname === '/to') {
        res.writeHead(302, { location: url.searchParams.get('u')! });
        return res.end();
      }
      if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' });
        return res.end();
      }
      if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/html' });
        for (let i = 0; i < 100; i++) res.write('x'.repeat(1024));
        return res.end();
      }
      if (url.pathname === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (url.pathname === '/binary') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end('xx');
      }
      res.writeHead(404).end();
    });
    fetcher = new WebFetcher({ allowedOrigins: [allowed.origin], maxBytes: 64 * 1024, timeoutMs: 500, maxRedirects: 3, maxChars: 10_000 });
  });
  afterAll(() => {
    allowed.server.close();
    other.server.close();
  });

  it.each([
    ['http://127.0.0.1:5432', 'forbidden_address'],
    ['http://169.254.169.254/', 'forbidden_address'],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'forbidden_address'],
    ['http://[::1]/', 'forbidden_address'],
    ['http://[::ffff:127.0.0.1]/', 'forbidden_address'],
    ['http://[fd00:ec2::254]/', 'forbidden_address'],
    ['http://10.0.0.1/', 'forbidden_address'],
    ['http://192.168.1.1/', 'forbidden_address'],
    ['http://0.0.0.0:80/', 'forbidden_address'],
    ['http://2130706433/', 'forbidden_address'], // 127.0.0.1 as one decimal number
    ['http://0x7f.1/', 'forbidden_address'],
    ['http://localhost/', 'forbidden_address'], // a name that resolves to loopback
    ['file:///etc/passwd', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['gopher://127.0.0.1:6379/_FLUSHALL', 'scheme'],
    ['http://user:pw@example.com/', 'scheme'],
  ])('refuses %s (%s)', async (url, reason) => {
    expect((await refusal(fetcher.fetch(url))).reason).toBe(reason);
  });

  it('refuses a loopback origin that is not on the allow-list, even on the same host (the port counts), without connecting', async () => {
    const before = other.hits();
    expect((await refusal(fetcher.fetch(`${other.origin}/`))).reason).toBe('forbidden_address');
    expect(other.hits()).toBe(before);
  });

  it('fetches an allowed origin and makes the HTML readable text', async () => {
    const page = await fetcher.fetch(`${allowed.origin}/page`);
    expect(page).toEqual({
      url: `${allowed.origin}/page`,
      status: 200,
      title: 'A & B',
      text: 'Hello\nFirst para.\nSecond',
      truncated: false,
    });
  });

  it('checks every redirect again: a redirect from an allowed origin to loopback is refused', async () => {
    const before = other.hits();
    const error = await refusal(fetcher.fetch(`${allowed.origin}/to?u=${encodeURIComponent(`${other.origin}/`)}`));
    expect(error.reason).toBe('forbidden_address');
    expect(other.hits()).toBe(before);
    expect((await refusal(fetcher.fetch(`${allowed.origin}/to?u=${encodeURIComponent('http://169.254.169.254/')}`))).reason).toBe(
      'forbidden_address',
    );
    expect((await refusal(fetcher.fetch(`${allowed.origin}/to?u=${encodeURIComponent('file:///etc/passwd')}`))).reason).toBe('scheme');
  });

  it('follows allowed redirects up to the cap', async () => {
    expect((await fetcher.fetch(`${allowed.origin}/to?u=/page`)).url).toBe(`${allowed.origin}/page`);
    expect((await refusal(fetcher.fetch(`${allowed.origin}/loop`))).reason).toBe('redirects');
  });

  it('caps size and time, and fetches text only', async () => {
    expect((await refusal(fetcher.fetch(`${allowed.origin}/big`))).reason).toBe('too_large');
    expect((await refusal(fetcher.fetch(`${allowed.origin}/slow`))).reason).toBe('timeout');
    expect((await refusal(fetcher.fetch(`${allowed.origin}/binary`))).reason).toBe('content_type');
  });
});

describe('address rules', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not-an-ip',
  ])('%s is forbidden', (address) => expect(isForbiddenAddress(address)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );
});

describe('htmlToText', () => {
  it('keeps the prose, drops scripts, styles and navigation, decodes entities', () => {
    expect(
      htmlToText('<title>T</title><style>p{}</style><p>a &lt;b&gt; &#39;c&#x27;</p><!-- x --><ul><li>one</li><li>two</li></ul>'),
    ).toEqual({ title: 'T', text: "a <b> 'c'\n- one\n- two" });
  });
});
