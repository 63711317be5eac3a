import {
  GENERATION_EXPORT_PAGE,
  type ExportGenerationsQueryDto,
  type GenerationListView,
  type GenerationView,
  type Principal,
  GenerationsList,
} from '@gw/contracts';
import type { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';

/** The CSV's columns: the scalar fields of a generation, in this order. */
export const CSV_COLUMNS = [
  'id',
  'created_at',
  'model',
  'provider_name',
  'api_type',
  'streamed',
  'cancelled',
  'finish_reason',
  'native_finish_reason',
  'tokens_prompt',
  'tokens_completion',
  'native_tokens_reasoning',
  'native_tokens_cached',
  'total_cost',
  'upstream_inference_cost',
  'is_byok',
  'latency',
  'generation_time',
  'upstream_id',
  'session_id',
  'request_id',
] as const satisfies ReadonlyArray<keyof GenerationView>;

/**
 * One CSV cell (RFC 4180): quoted when it holds a separator, a quote or a line break. A text
 * starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so a
 * spreadsheet does not run it as a formula (session ids and models are the client's texts).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(view: GenerationView): string {
  return `${CSV_COLUMNS.map((column) => csvCell(view[column])).join(',')}\r\n`;
}

/**
 * `GET /v1/generations/export`: every generation the filters select, newest first, read from
 * inference page by page (a keyset cursor, so rows written meanwhile neither repeat nor shift the
 * pages) and written as each page arrives, waiting for the socket to drain: memory stays one page.
 */
export async function streamGenerationsExport(
  rpc: RpcClient,
  principal: Principal,
  query: ExportGenerationsQueryDto,
  reply: FastifyReply,
): Promise<void> {
  const { format, ...filters } = query;
  const send = (cursor?: string): Promise<GenerationListView> =>
    rpc.send(GenerationsList, { principal, query: { ...filters, ...(cursor ? { cursor } : {}) }, pageSize: GENERATION_EXPORT_PAGE });
  // The first page is read before the head is sent, so a refused filter is a proper 400.
  let page = await send();
  const csv = format === 'csv';
  reply.raw.writeHead(200, {
    'content-type': csv ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8',
    'content-disposition': `attachment; filename="generations.${format}"`,
  });
  try {
    if (csv) reply.raw.write(`${CSV_COLUMNS.join(',')}\r\n`);
    for (;;) {
      const text = page.data.map((view) => (csv ? csvLine(view) : `${JSON.stringify(view)}\n`)).join('');
      if (text && !reply.raw.write(text)) await new Promise((resolve) => reply.raw.once('drain', resolve));
      if (page.next_cursor === null || reply.raw.destroyed) break;
      page = await send(page.next_cursor);
    }
    reply.raw.end();
  } catch (error) {
    // The status is sent: a later page that fails cuts the body short, never ends it as if complete.
    reply.raw.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
