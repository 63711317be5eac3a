import type { ResilientNatsConnection } from '@gw/messaging';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InferenceEnv } from '../env.js';
import { canonicalCatalogText } from './catalog.loader.js';
import { CatalogService } from './catalog.service.js';
import { CatalogSync } from './catalog-sync.service.js';
import type { CatalogVersionsStore, CatalogWrite, FileSeen, StoredCatalogVersion } from './catalog-versions.store.js';

/** The store's contract in memory: versions appended in order, the file's last seen hash. */
class MemoryStore {
  versions: StoredCatalogVersion[] = [];
  seen: FileSeen | undefined;

  latest = async () => this.versions.at(-1);
  latestVersion = async () => this.versions.at(-1)?.version ?? 0;

  async write<T>(
    decide: (latest: StoredCatalogVersion | undefined, seen: FileSeen | undefined) => Promise<CatalogWrite<T>> | CatalogWrite<T>,
  ) {
    const decision = await decide(this.versions.at(-1), this.seen);
    let stored: StoredCatalogVersion | undefined;
    if (decision.append) {
      stored = { ...decision.append, version: this.versions.length + 1, createdAt: new Date() };
      this.versions.push(stored);
    }
    if (decision.fileSeen)
      this.seen = {
        hash: decision.fileSeen.hash,
        version: decision.fileSeen.version === 'new' ? stored!.version : decision.fileSeen.version,
      };
    return { stored, result: decision.result };
  }
}

const provider = { id: 'p', name: 'P', format: 'openai', baseUrl: 'https://p.example/v1', apiKey: 'k' };
const model = (name: string) => ({
  id: 'a/m',
  name,
  contextLength: 1000,
  supportedParameters: [],
  endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt: '1', completion: '2' } }],
});
const nats = {
  connection: { subscribe: () => ({ unsubscribe: () => undefined }), publish: () => undefined },
} as unknown as ResilientNatsConnection;
const started: CatalogSync[] = [];
afterEach(() => started.splice(0).forEach((sync) => sync.onModuleDestroy()));

/** A replica started on a catalog file holding `name` as the model's name, over `store`. */
async function start(store: MemoryStore, name: string): Promise<{ catalog: CatalogService; sync: CatalogSync }> {
  const path = join(mkdtempSync(join(tmpdir(), 'catalog-sync-')), 'models.json');
  writeFileSync(path, JSON.stringify({ providers: [provider], models: [model(name)] }));
  const env = { MODEL_CATALOG_PATHS: path, CATALOG_POLL_MS: 600_000 } as InferenceEnv;
  const catalog = new CatalogService(env);
  const sync = new CatalogSync(env, catalog, store as unknown as CatalogVersionsStore, nats);
  await sync.onModuleInit();
  started.push(sync);
  return { catalog, sync };
}

const adminEdit = (store: MemoryStore, name: string) =>
  store.write(() => ({
    append: {
      document: canonicalCatalogText({ providers: [provider], models: [model(name)] }),
      author: 'ops',
      action: 'put_model',
      source: 'admin' as const,
      changes: [],
    },
    result: undefined,
  }));

describe('CatalogSync: the files and the stored catalog', () => {
  it('seeds an empty database from the files, and a restart on the same files stores nothing', async () => {
    const store = new MemoryStore();
    const { catalog } = await start(store, 'first');
    expect(store.versions.map((entry) => [entry.version, entry.action, entry.source])).toEqual([[1, 'seed', 'file']]);
    expect(catalog.version).toBe(1);
    await start(store, 'first');
    expect(store.versions).toHaveLength(1);
  });

  it('applies changed files as the next version when nobody edited the database since', async () => {
    const store = new MemoryStore();
    await start(store, 'first');
    const { catalog } = await start(store, 'second');
    expect(store.versions.map((entry) => entry.action)).toEqual(['seed', 'file']);
    expect(store.versions[1]!.changes).toEqual([{ op: 'change', path: 'models[a/m].name', before: 'first', after: 'second' }]);
    expect(catalog.resolve('a/m').config.name).toBe('second');
  });

  it('applies neither side when the files and the database both changed, and reports the conflict until they agree', async () => {
    const store = new MemoryStore();
    await start(store, 'first');
    await adminEdit(store, 'by the operator');
    const { catalog, sync } = await start(store, 'from git');
    expect(store.versions).toHaveLength(2);
    expect(catalog.resolve('a/m').config.name).toBe('by the operator');
    expect(sync.state().file_conflict).toMatch(/catalog files changed since version 1.*versions up to 2/);
    // The operator imports the files' catalog: the two agree and the conflict clears.
    await adminEdit(store, 'from git');
    await sync.refresh();
    expect(sync.state()).toEqual({ version: 3, state: 'ok', loaded_at: expect.any(String) });
    await start(store, 'from git');
    expect(store.versions).toHaveLength(3);
  });
});

describe('CatalogSync: a version that does not load', () => {
  it('keeps serving the last good version, says so, and takes the next good one', async () => {
    const store = new MemoryStore();
    const { catalog, sync } = await start(store, 'first');
    store.versions.push({
      version: 2,
      document: '{"providers": [], "models": [{"id": "x"}]}\n',
      author: 'ops',
      action: 'import',
      source: 'admin',
      changes: [],
      createdAt: new Date(),
    });
    await sync.refresh();
    expect(catalog.version).toBe(1);
    expect(catalog.resolve('a/m').config.name).toBe('first');
    expect(sync.state()).toMatchObject({
      version: 1,
      state: 'stale',
      failed_version: 2,
      error: expect.stringContaining('Invalid model catalog'),
    });
    await adminEdit(store, 'fixed');
    await sync.refresh();
    expect(sync.state()).toEqual({ version: 3, state: 'ok', loaded_at: expect.any(String) });
    expect(catalog.resolve('a/m').config.name).toBe('fixed');
  });
});
