/**
 * Drives an OIDC login the way a browser would, with plain HTTP requests: follows the
 * redirects, keeps the provider's cookies, fills and submits the provider's login form, then
 * its consent form, and follows the provider's last redirect to the relying party's callback.
 * Used by `npm run up` (links the demo user) and by the tests; it works with this tool's pages
 * (a form with `login` and `password` fields, then a consent form), not with any provider.
 */

export interface HeadlessLoginOptions {
  /** The authorization URL the relying party gave (`POST /v1/identity/oidc/start`). */
  authorizationUrl: string;
  login: string;
  password: string;
  /** Stop before calling a URL that starts with this (the callback): return it instead. */
  stopAt?: string;
  /** Submit the consent page's second form (Deny) instead of the first. */
  deny?: boolean;
}

export interface HeadlessLoginResult {
  /** The last URL reached (the callback, with `code`, `state`, `iss`). */
  url: string;
  /** The callback's answer, unless `stopAt` stopped before it. */
  status?: number;
  body?: string;
}

const MAX_STEPS = 20;

class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const separator = pair!.indexOf('=');
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key, raw] = attribute.split('=').map((part) => part.trim());
        return (
          (key?.toLowerCase() === 'expires' && Date.parse(raw ?? '') <= Date.now()) ||
          (key?.toLowerCase() === 'max-age' && Number(raw) <= 0)
        );
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

interface Form {
  action: string;
  fields: Map<string, string>;
}

/** The forms of a page, in order: `action` and the named inputs with their values. */
export function formsOf(html: string): Form[] {
  const forms: Form[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const action = /\baction="([^"]*)"/i.exec(match[1]!)?.[1];
    if (action === undefined) continue;
    const fields = new Map<string, string>();
    for (const input of match[2]!.matchAll(/<input\b([^>]*)>/gi)) {
      const name = /\bname="([^"]*)"/i.exec(input[1]!)?.[1];
      if (name) fields.set(name, /\bvalue="([^"]*)"/i.exec(input[1]!)?.[1] ?? '');
    }
    forms.push({ action: action.replace(/&amp;/g, '&'), fields });
  }
  return forms;
}

export async function headlessLogin(options: HeadlessLoginOptions): Promise<HeadlessLoginResult> {
  const providerOrigin = new URL(options.authorizationUrl).origin;
  const jar = new CookieJar();
  let url = options.authorizationUrl;
  let method = 'GET';
  let body: string | undefined;
  let submittedLogin = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    if (options.stopAt && url.startsWith(options.stopAt)) return { url };
    const atProvider = new URL(url).origin === providerOrigin;
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        ...(atProvider ? { cookie: jar.header() } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
    });
    if (atProvider) jar.store(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer();
      url = new URL(location, url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const text = await response.text();
    const forms = atProvider && response.ok ? formsOf(text) : [];
    if (forms.length === 0) {
      if (atProvider) throw new Error(`the provider answered ${response.status} at ${url}: ${text.slice(0, 300)}`);
      return { url, status: response.status, body: text };
    }
    const isLogin = forms[0]!.fields.has('login');
    if (isLogin && submittedLogin) throw new Error('the provider refused the login');
    const form = isLogin || !options.deny ? forms[0]! : (forms[1] ?? forms[0]!);
    if (isLogin) {
      form.fields.set('login', options.login);
      form.fields.set('password', options.password);
      submittedLogin = true;
    }
    url = new URL(form.action, url).href;
    method = 'POST';
    body = new URLSearchParams([...form.fields]).toString();
  }
  throw new Error(`the login did not finish within ${MAX_STEPS} requests`);
}

export interface LinkOptions {
  /** The gateway's base URL, `http://host:port/v1`. */
  baseUrl: string;
  /** The user's API key (standard or management). */
  apiKey: string;
  login: string;
  password: string;
}

/** Starts a login at the gateway with the user's key and finishes it headlessly: the user is linked. */
export async function linkIdentity(options: LinkOptions): Promise<HeadlessLoginResult> {
  const started = await fetch(`${options.baseUrl}/identity/oidc/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.apiKey}` },
  });
  const text = await started.text();
  if (started.status !== 200) throw new Error(`POST /v1/identity/oidc/start answered ${started.status}: ${text}`);
  const { data } = JSON.parse(text) as { data: { authorization_url: string } };
  const result = await headlessLogin({ authorizationUrl: data.authorization_url, login: options.login, password: options.password });
  if (result.status !== 200) throw new Error(`the callback answered ${result.status}: ${result.body?.slice(0, 300)}`);
  return result;
}
