import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress, publicOnlyLookup } from './address-rules.js';
import { htmlToText } from './html-text.js';
import { pdfToText } from './pdf-text.js';

export interface WebFetchOptions {
  /** Origins (`http://127.0.0.1:8792`) reachable although their addresses are private. */
  allowedOrigins: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  maxChars: number;
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  title: string | null;
  text: string;
  /** True when the text was cut at `maxChars` or the body at `maxBytes`. */
  truncated: boolean;
}

/** Why web_fetch refused or failed; the model is told this message as the tool result. */
export class WebFetchError extends Error {
  constructor(
    message: string,
    readonly reason:
      'scheme' | 'forbidden_address' | 'dns' | 'redirects' | 'timeout' | 'too_large' | 'http_status' | 'content_type' | 'network',
  ) {
    super(message);
    this.name = 'WebFetchError';
  }
}

const TEXT_TYPES = /^(text\/|application\/(xhtml\+xml|xml|json|ld\+json|pdf))/i;

/**
 * web_fetch's HTTP client, guarded against server-side request forgery: only
 * http(s); every host resolved and refused when any of its addresses is private, loopback,
 * link-local, unique-local or otherwise not public (address-rules.ts), the check made in the
 * socket's own lookup so the address connected to is the address checked (no DNS rebinding
 * between check and connect); redirects followed by hand, each hop checked again, at most
 * `maxRedirects`; the whole fetch bounded by `timeoutMs` and the body by `maxBytes`. Origins in
 * `allowedOrigins` skip the address check (the local search simulator), nothing else does.
 */
export class WebFetcher {
  private readonly allowed: Set<string>;

  constructor(private readonly options: WebFetchOptions) {
    this.allowed = new Set(options.allowedOrigins.map((origin) => new URL(origin).origin));
  }

  async fetch(rawUrl: string, signal?: AbortSignal): Promise<FetchedPage> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let url = this.parse(rawUrl);
    for (let redirects = 0; ; redirects++) {
      const response = await this.get(url, combined);
      const location = response.headers.location;
      if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
        response.resume();
        if (redirects >= this.options.maxRedirects)
          throw new WebFetchError(`too many redirects (more than ${this.options.maxRedirects})`, 'redirects');
        url = this.parse(new URL(location, url).toString());
        continue;
      }
      return this.read(url, response, combined);
    }
  }

  private parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new WebFetchError(`not a URL: ${raw}`, 'scheme');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new WebFetchError(`only http and https URLs can be fetched, not ${url.protocol}`, 'scheme');
    if (url.username || url.password) throw new WebFetchError('URLs with credentials are not fetched', 'scheme');
    // An IP literal never goes through the lookup: it is judged here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.allowed.has(url.origin) && isForbiddenAddress(host)) {
      throw new WebFetchError(`${url.host} is a private, loopback or link-local address and is not fetched`, 'forbidden_address');
    }
    return url;
  }

  private guardedLookup(origin: string): LookupFunction | undefined {
    if (this.allowed.has(origin)) return undefined;
    return publicOnlyLookup(
      (hostname, address) =>
        new WebFetchError(
          `${hostname} resolves to ${address}, a private, loopback or link-local address, and is not fetched`,
          'forbidden_address',
        ),
    );
  }

  private get(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'GET',
          signal,
          lookup: this.guardedLookup(url.origin),
          headers: {
            'user-agent': 'inference-gateway-web-fetch/1.0',
            accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1',
            'accept-encoding': 'identity',
          },
        },
        resolve,
      );
      req.on('error', (error) => reject(this.failure(error, signal)));
      req.end();
    });
  }

  private failure(error: unknown, signal: AbortSignal): WebFetchError {
    if (error instanceof WebFetchError) return error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof WebFetchError) return cause;
    if (signal.aborted) return new WebFetchError(`no answer within ${this.options.timeoutMs} ms`, 'timeout');
    const code = (error as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new WebFetchError(`the host could not be resolved (${code})`, 'dns');
    return new WebFetchError(`the fetch failed: ${(error as Error).message}`, 'network');
  }

  private async read(url: URL, response: IncomingMessage, signal: AbortSignal): Promise<FetchedPage> {
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      response.resume();
      throw new WebFetchError(`the server answered HTTP ${status}`, 'http_status');
    }
    const type = String(response.headers['content-type'] ?? 'text/html');
    if (!TEXT_TYPES.test(type)) {
      response.resume();
      throw new WebFetchError(`content of type ${type} is not text`, 'content_type');
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.options.maxBytes) {
      response.destroy();
      throw new WebFetchError(`the page is larger than ${this.options.maxBytes} bytes`, 'too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.options.maxBytes) {
          response.destroy();
          throw new WebFetchError(`the page is larger than ${this.options.maxBytes} bytes`, 'too_large');
        }
        chunks.push(chunk);
      }
    } catch (error) {
      throw this.failure(error, signal);
    }
    const { title, text } = await this.textOf(type, Buffer.concat(chunks));
    const truncated = text.length > this.options.maxChars;
    return { url: url.toString(), status, title, text: truncated ? text.slice(0, this.options.maxChars) : text, truncated };
  }

  /** HTML as readable text, a PDF as its text (the file-parser plugin's reader), other text types as they are. */
  private async textOf(type: string, body: Buffer): Promise<{ title: string | null; text: string }> {
    if (/application\/pdf/i.test(type)) {
      try {
        return { title: null, text: (await pdfToText(body)).text };
      } catch (error) {
        throw new WebFetchError(`the PDF could not be read: ${(error as Error).message}`, 'content_type');
      }
    }
    const text = body.toString('utf8');
    return /html|xml/i.test(type) ? htmlToText(text) : { title: null, text };
  }
}
