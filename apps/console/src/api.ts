/** The console's only way to the gateway: the public API behind the session (/console/api/v1/...). */

export interface SessionInfo {
  user: { id: string; email: string; name: string; workspace_id: string; role: string };
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

async function call(url: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (response.status === 401) onSignedOut();
  if (!response.ok) throw await failure(response);
  return response;
}

/** `path` is the public API's, e.g. `/v1/keys`. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await call(`/console/api${path}`, init);
  return (await response.json()) as T;
}

/** A file the API serves (batch results), as a download. */
export async function download(path: string, filename: string): Promise<void> {
  const response = await call(`/console/api${path}`);
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  URL.revokeObjectURL(url);
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
