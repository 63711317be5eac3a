import type { AdminCatalogChangeRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { CatalogDocument } from './catalog.loader.js';
import { InvalidCatalogError, parseCatalogDocument } from './catalog.loader.js';
import type { CatalogConfig } from './catalog.schema.js';

type Entry = Record<string, unknown>;

/**
 * The catalog document a change makes of `current` (a new object; `current` is not touched).
 * `rollback` is not here: its document is a stored version's.
 */
export function applyCatalogChange(current: CatalogDocument, change: AdminCatalogChangeRequest): CatalogDocument {
  switch (change.action) {
    case 'import':
      return importedDocument(change.body);
    case 'put_provider':
      return { ...current, providers: put(current.providers, idOf(change), bodyOf(change)) };
    case 'delete_provider':
      return { ...current, providers: remove(current.providers, idOf(change), 'provider') };
    case 'put_model':
      return { ...current, models: put(current.models, idOf(change), bodyOf(change)) };
    case 'delete_model':
      return { ...current, models: remove(current.models, idOf(change), 'model') };
    case 'rollback':
      throw new Error('a rollback takes a stored version, not an edit');
  }
}

/**
 * Validates a document exactly as the catalog files are validated (with this replica's
 * environment for `${VAR}` references): 400 naming every field at fault, the first as `param`.
 */
export function validateCatalogDocument(document: CatalogDocument): CatalogConfig {
  try {
    return parseCatalogDocument(document);
  } catch (error) {
    if (!(error instanceof InvalidCatalogError)) throw error;
    const first = error.problems[0] ?? '';
    const param = first.includes(':') ? first.slice(0, first.indexOf(':')) : undefined;
    throw GatewayError.badRequest(`Invalid catalog: ${error.problems.join('; ')}`, param ? { param } : undefined);
  }
}

function importedDocument(body: Entry | undefined): CatalogDocument {
  if (!body || !Array.isArray(body.providers) || !Array.isArray(body.models))
    throw GatewayError.badRequest('Invalid catalog: the body is a catalog, {"providers": [...], "models": [...]}', {
      param: 'catalog',
    });
  return body as unknown as CatalogDocument;
}

/** The entry with `id` replaced where it stands, or appended; the path's id wins and a different body id is refused. */
function put(entries: unknown[], id: string, body: Entry): unknown[] {
  if (body.id !== undefined && body.id !== id)
    throw GatewayError.badRequest(`Invalid catalog: the body's id ${JSON.stringify(body.id)} is not the path's ${id}`, { param: 'id' });
  const { id: _bodyId, ...fields } = body;
  const entry = { id, ...fields };
  const index = entries.findIndex((candidate) => (candidate as Entry | null)?.id === id);
  return index === -1 ? [...entries, entry] : entries.map((candidate, at) => (at === index ? entry : candidate));
}

function remove(entries: unknown[], id: string, kind: string): unknown[] {
  const kept = entries.filter((candidate) => (candidate as Entry | null)?.id !== id);
  if (kept.length === entries.length) throw GatewayError.notFound(`No ${kind} ${id} in the catalog`);
  return kept;
}

function idOf(change: AdminCatalogChangeRequest): string {
  if (!change.id) throw GatewayError.badRequest('The change names no id', { param: 'id' });
  return change.id;
}

function bodyOf(change: AdminCatalogChangeRequest): Entry {
  if (!change.body) throw GatewayError.badRequest('The change has no body', { param: 'body' });
  return change.body;
}
