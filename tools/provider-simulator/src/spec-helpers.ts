/** Helpers shared by the simulator's specs (plain HTTP through fetch). */

export const OPENAI_AUTH = { authorization: 'Bearer sk-sim' };
export const ANTHROPIC_AUTH = { 'x-api-key': 'sk-ant-sim', 'anthropic-version': '2023-06-01' };

export interface Posted {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Posted> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits an SSE body into events (`event:` / `data:` lines, blank-line separated). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const ev: SseEvent = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) ev.event = line.slice(7);
      else if (line.startsWith('data: ')) ev.data += line.slice(6);
    }
    events.push(ev);
  }
  return events;
}

/** Reads a streamed body until the server ends or cuts it; reports which. */
export async function readStream(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ text: string; cut: boolean; status: number }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    return { text, cut: false, status: res.status };
  } catch {
    return { text, cut: true, status: res.status };
  }
}
