import { describe, expect, it } from 'vitest';
import { listStatement, type ListFilters } from './generation-list.service.js';

const WORKSPACE = '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab';
const none: ListFilters = { keyHash: null, embeddingModels: null, embeddingsOnly: false };

describe('listStatement', () => {
  it('holds only the filters asked for, each value a parameter, the limit last', () => {
    const bare = listStatement(WORKSPACE, none, 51);
    expect(bare.text).toMatch(/WHERE workspace_id = \$1::uuid ORDER BY created_at DESC, id DESC LIMIT \$2$/);
    expect(bare.values).toEqual([WORKSPACE, 51]);

    const key = listStatement(WORKSPACE, { ...none, keyHash: 'ab'.repeat(32), from: '2026-11-01T00:00:00Z', costAbove: '0.01' }, 11);
    // char(64), not text: a text comparison casts the column and no index on key_hash can serve it.
    expect(key.text).toContain('key_hash = $2::char(64) AND created_at >= $3::timestamptz AND cost > $4::numeric');
    expect(key.values).toEqual([WORKSPACE, 'ab'.repeat(32), '2026-11-01T00:00:00Z', '0.01', 11]);
  });

  it('bounds a cursor page by created_at alone too (partition pruning) and by (created_at, id)', () => {
    const page = listStatement(WORKSPACE, { ...none, after: { createdAt: '2026-11-28T10:00:00.000Z', id: 'gen-9' } }, 51);
    expect(page.text).toContain('created_at <= $2::timestamptz AND (created_at, id) < ($2::timestamptz, $3::text)');
    expect(page.values).toEqual([WORKSPACE, '2026-11-28T10:00:00.000Z', 'gen-9', 51]);
  });

  it('names one prepared statement per set of filters, whatever their values, within 63 characters', () => {
    const all: ListFilters = {
      keyHash: 'ab'.repeat(32),
      model: 'm',
      provider: 'p',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
      after: { createdAt: '2026-11-01T12:00:00.000Z', id: 'gen-1' },
      userId: WORKSPACE,
      status: 'failed',
      finishReason: 'stop',
      costAbove: '1',
      embeddingModels: ['e'],
      embeddingsOnly: true,
    };
    const sets: ListFilters[] = [
      none,
      { ...none, keyHash: 'cd'.repeat(32) },
      { ...none, from: '2026-11-01T00:00:00Z' },
      { ...none, to: '2026-11-01T00:00:00Z' },
      { ...none, embeddingModels: ['e'], embeddingsOnly: false },
      { ...none, embeddingModels: ['e'], embeddingsOnly: true },
      all,
    ];
    const statements = sets.map((filters) => listStatement(WORKSPACE, filters, 51));
    expect(new Set(statements.map((statement) => statement.name)).size).toBe(sets.length);
    for (const statement of statements) expect(statement.name!.length).toBeLessThanOrEqual(63);
    const again = listStatement(WORKSPACE, { ...none, keyHash: 'ef'.repeat(32) }, 3);
    expect(again.name).toBe(statements[1]!.name);
    expect(again.text).toBe(statements[1]!.text);
  });
});
