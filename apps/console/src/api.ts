/** The console's only way to the gateway: the public API behind the session (/console/api/v1/...). */

export interface SessionInfo {
  user: { id: string; email: string; name: string; workspace_id: string; role: string };
  /** `management` (owners), `standard` (members) or `operator` (the platform team: the catalog pages). */
  key_kind: string;
  csrf_token: string;
  expires_at: string;
  idle_timeout_seconds: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function useCsrf(token: string, signedOut: () => void): void {
  csrfToken = token;
  onSignedOut = signedOut;
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { error?: { message?: string; metadata?: { reason?: string } } } | null;
  const message = body?.error?.message ?? `${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, body?.error?.metadata?.reason);
}

interface CallInit {
  method?: string;
  body?: unknown;
  /** Request headers the API reads (If-Match on catalog writes). */
  headers?: Record<string, string>;
}

async function call(url: string, init: CallInit = {}): Promise<Response> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!response.ok) {
    const error = await failure(response);
    // The API answers 401 to a member's key on an owner's route too; that session still stands.
    if (response.status === 401 && error.reason !== 'management_key_required') onSignedOut();
    throw error;
  }
  return response;
}

/** `path` is the public API's, e.g. `/v1/keys`. */
export async function api<T>(path: string, init: CallInit = {}): Promise<T> {
  const response = await call(`/console/api${path}`, init);
  return (await response.json()) as T;
}

/** A file the API serves (batch results), as a download. */
export async function download(path: string, filename: string): Promise<void> {
  const response = await call(`/console/api${path}`);
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  // Revoked once the browser has started the download, not while it reads the URL.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export async function loadSession(): Promise<SessionInfo | null> {
  const response = await fetch('/console/auth/session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (response.status === 401) return null;
  if (!response.ok) throw await failure(response);
  return ((await response.json()) as { data: SessionInfo }).data;
}

export async function logout(everywhere: boolean): Promise<void> {
  await fetch('/console/auth/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
    body: JSON.stringify({ everywhere }),
  });
}

/** The operator's sign-in: the key goes once to the gateway, which answers a session cookie and keeps no copy in the browser. */
export async function signInWithKey(key: string): Promise<void> {
  const response = await fetch('/console/auth/key', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ key }),
  });
  if (!response.ok) throw await failure(response);
}
