import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { consolePage } from './console-page.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Scripts and styles from this origin only; framing refused; inline styles for the component library's style attributes. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

interface StaticFile {
  body: Buffer;
  /** Compressed once at start for the text types; null when it would not be smaller. */
  gzip: Buffer | null;
  type: string;
  etag: string;
}

function loadFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
        const type = TYPES[extname(name)] ?? 'application/octet-stream';
        const packed = /^(text|image\/svg|application\/json)/.test(type) ? gzipSync(body, { level: 9 }) : null;
        const gzip = packed && packed.length < body.length ? packed : null;
        files.set('/' + relative(dir, path).split(sep).join('/'), { body, gzip, type, etag });
      }
    }
  };
  walk(dir);
  return files;
}

/**
 * The console's built files under /console/, read once at start (a few hundred KB). Hashed
 * assets are cached for a year; any other path is the app's index.html, which routes itself.
 */
export function registerConsoleStatic(fastify: FastifyInstance, dir: string): void {
  const files = existsSync(join(dir, 'index.html')) ? loadFiles(dir) : null;
  fastify.get('/console', (_request, reply) => reply.redirect('/console/', 308));
  fastify.get('/console/*', (request, reply) => {
    void reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin');
    if (!files) {
      return reply
        .status(404)
        .type('text/html; charset=utf-8')
        .send(consolePage('Console not built', ['Build it with: nx run console:build'], null));
    }
    const path = request.url.slice('/console'.length).split('?')[0]!;
    const asset = files.get(path);
    const file = asset ?? files.get('/index.html')!;
    if (asset && path.startsWith('/assets/')) void reply.header('cache-control', 'public, max-age=31536000, immutable');
    else void reply.header('cache-control', 'no-cache').header('content-security-policy', CSP).header('x-frame-options', 'DENY');
    if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
    void reply.header('etag', file.etag).header('vary', 'accept-encoding').type(file.type);
    if (file.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(file.gzip);
    }
    return reply.send(file.body);
  });
}
