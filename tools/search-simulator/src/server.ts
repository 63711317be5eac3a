import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CORPUS } from './corpus.ts';
import { pageHtml } from './html.ts';
import { minimalPdf } from './pdf.ts';
import { searchResponse } from './search.ts';

const MAX_RESULTS = 20;

function send(res: ServerResponse, status: number, body: string, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8');
}

/** The base URL pages are published under: the address the client used (its Host header). */
function baseUrlOf(req: IncomingMessage): string {
  return `http://${req.headers.host ?? '127.0.0.1'}`;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://simulator');
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'method not allowed' });
  if (url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
  if (url.pathname === '/search') {
    const query = url.searchParams.get('q');
    // SearXNG answers 400 without a query and 403 for a format it does not serve.
    if (!query) return send(res, 400, 'Bad Request', 'text/plain');
    if (url.searchParams.get('format') !== 'json') return send(res, 403, 'Forbidden', 'text/plain');
    const limit = Math.min(MAX_RESULTS, Math.max(1, Number(url.searchParams.get('max_results') ?? 5) || 5));
    return sendJson(res, 200, searchResponse(query, baseUrlOf(req), limit));
  }
  if (url.pathname.startsWith('/pages/') && url.pathname.endsWith('.pdf')) {
    // The page as a PDF: for the gateway's file-parser plugin and web_fetch of PDFs.
    const page = CORPUS.find((entry) => entry.slug === url.pathname.slice('/pages/'.length, -'.pdf'.length));
    if (!page) return send(res, 404, 'Not found', 'text/plain');
    const pdf = minimalPdf([page.title, ...page.paragraphs]);
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.length) });
    return void res.end(pdf);
  }
  if (url.pathname.startsWith('/pages/')) {
    const page = CORPUS.find((entry) => entry.slug === url.pathname.slice('/pages/'.length));
    if (!page) return send(res, 404, '<!doctype html><title>Not found</title><p>Not found</p>', 'text/html; charset=utf-8');
    return send(res, 200, pageHtml(page), 'text/html; charset=utf-8');
  }
  // For web_fetch's redirect rules: `/redirect?to=<url>` answers 302 to it, `/redirect?hops=n` chains n redirects to the first page.
  if (url.pathname === '/redirect') {
    const to = url.searchParams.get('to');
    const hops = Number(url.searchParams.get('hops') ?? 0);
    const location = to ?? (hops > 1 ? `/redirect?hops=${hops - 1}` : `/pages/${CORPUS[0]!.slug}`);
    return send(res, 302, '', 'text/plain', { location });
  }
  // Larger than any sane fetch cap: `/big?bytes=n` (default 5 MiB) of HTML.
  if (url.pathname === '/big') {
    const bytes = Math.min(50 * 1024 * 1024, Number(url.searchParams.get('bytes') ?? 5 * 1024 * 1024) || 0);
    const chunk = '<p>' + 'x'.repeat(1017) + '</p>\n';
    res.writeHead(200, { 'content-type': 'text/html' });
    let sent = 0;
    const write = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      res.end();
    };
    return write();
  }
  // Never answers within any sane fetch timeout.
  if (url.pathname === '/slow') {
    const timer = setTimeout(() => send(res, 200, '<p>late</p>', 'text/html'), Number(url.searchParams.get('ms') ?? 60_000));
    res.on('close', () => clearTimeout(timer));
    return;
  }
  sendJson(res, 404, { error: `not found: ${url.pathname}` });
}

/** The search simulator: SearXNG's JSON search API over the offline corpus, and the corpus pages as HTML. */
export function createSearchSimulatorServer(): Server {
  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      sendJson(res, 500, { error: String(error) });
    }
  });
  server.keepAliveTimeout = 5_000;
  return server;
}
