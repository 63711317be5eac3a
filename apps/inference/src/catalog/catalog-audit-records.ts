import type { CatalogAuditRecord } from '@gw/contracts';
import { redacted } from './catalog-diff.js';
import type { CatalogDocument } from './catalog.loader.js';
import type { StoredCatalogVersion } from './catalog-versions.store.js';

const KINDS = [
  { key: 'providers', resourceType: 'catalog_provider' },
  { key: 'models', resourceType: 'catalog_model' },
] as const;

/**
 * A stored version as audit rows: one per provider or model it created, updated or deleted
 * against the version before it, with the entry before and after (literal API keys redacted, as
 * in the version's diff). The first version (the seed from the files) is one `catalog.seed` row:
 * hundreds of creations would say nothing an export does not.
 */
export function catalogAuditRecords(version: StoredCatalogVersion, previous: CatalogDocument | undefined): CatalogAuditRecord[] {
  const base = {
    actorKind: version.source === 'admin' ? ('operator' as const) : ('system' as const),
    actorName: version.author,
    createdAt: version.createdAt.toISOString(),
    ...(version.requestId ? { requestId: version.requestId } : {}),
    ...(version.clientIp ? { ip: version.clientIp } : {}),
  };
  const next = JSON.parse(version.document) as CatalogDocument;
  if (!previous) {
    const after = {
      version: version.version,
      action: version.action,
      providers: byId(next.providers).size,
      models: byId(next.models).size,
    };
    return [
      {
        ...base,
        origin: `catalog/${version.version}/catalog`,
        action: 'catalog.seed',
        resourceType: 'catalog',
        resourceId: 'catalog',
        after,
      },
    ];
  }
  const records: CatalogAuditRecord[] = [];
  for (const { key, resourceType } of KINDS) {
    const before = byId(previous[key]);
    const after = byId(next[key]);
    for (const id of new Set([...before.keys(), ...after.keys()])) {
      const old = before.get(id);
      const now = after.get(id);
      if (JSON.stringify(old) === JSON.stringify(now)) continue;
      const verb = old === undefined ? 'create' : now === undefined ? 'delete' : 'update';
      records.push({
        ...base,
        origin: `catalog/${version.version}/${resourceType}/${id}`,
        action: `catalog.${key}.${verb}`,
        resourceType,
        resourceId: id,
        ...(old === undefined ? {} : { before: redacted('', old) as Record<string, unknown> }),
        ...(now === undefined ? {} : { after: redacted('', now) as Record<string, unknown> }),
      });
    }
  }
  return records;
}

/** Tolerant of a document no loader accepted (a version written past the API must not block the relay). */
function byId(entries: unknown): Map<string, Record<string, unknown>> {
  const map = new Map<string, Record<string, unknown>>();
  for (const entry of Array.isArray(entries) ? entries : []) {
    const record = entry as Record<string, unknown> | null;
    if (record && typeof record.id === 'string') map.set(record.id, record);
  }
  return map;
}
