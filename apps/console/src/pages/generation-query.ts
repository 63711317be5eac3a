/**
 * The filters of `GET /v1/generations` and its export, as the console keeps them: in the page's
 * URL under the API's own names and values (`from` / `to` as ISO instants), so a filtered list can
 * be linked to and the export asks for exactly what the list shows.
 */
export const GENERATION_FILTERS = [
  'key_hash',
  'user_id',
  'model',
  'provider',
  'status',
  'finish_reason',
  'api_type',
  'cost_gt',
  'from',
  'to',
] as const;

export type GenerationFilter = (typeof GENERATION_FILTERS)[number];

/** The API's enumerations (`GenerationFiltersDto`). */
export const GENERATION_STATUSES = ['succeeded', 'failed'];
export const GENERATION_API_TYPES = ['completions', 'embeddings'];
/** The finish reasons answers carry; the API takes any such word, so these are suggestions. */
export const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'error'];

/** The filters a query string holds, by the API's names (absent ones left out). */
export function filtersOf(query: URLSearchParams): URLSearchParams {
  const filters = new URLSearchParams();
  for (const name of GENERATION_FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  return filters;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An ISO instant as a `datetime-local` input shows it: the viewer's zone, to the second ('' when not a time). */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A `datetime-local` value (the viewer's zone) as the ISO instant the API takes; '' stays ''. */
export function fromLocalInput(local: string): string {
  if (!local) return '';
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}
