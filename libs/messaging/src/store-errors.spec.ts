import { describe, expect, it } from 'vitest';
import { classifyStoreError } from './store-errors.js';

/** Shapes seen from Prisma with the pg driver adapter (raw queries and transactions). */
describe('classifyStoreError', () => {
  it('takes PostgreSQL data and constraint errors for permanent', () => {
    const prismaRaw = Object.assign(new Error('Raw query failed. Code: `22021`.'), { code: 'P2010', meta: { code: '22021' } });
    expect(classifyStoreError(prismaRaw)).toBe('permanent');
    expect(classifyStoreError(Object.assign(new Error('x'), { cause: { originalCode: '23505' } }))).toBe('permanent');
  });

  it('takes an unreachable server, a killed backend or a deadlock for transient', () => {
    expect(
      classifyStoreError(Object.assign(new Error("Can't reach database server at 127.0.0.1:1"), { code: 'P2010', meta: { code: 'N/A' } })),
    ).toBe('transient');
    expect(
      classifyStoreError(Object.assign(new Error('terminating connection due to administrator command'), { meta: { code: '57P01' } })),
    ).toBe('transient');
    expect(classifyStoreError(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe('transient');
    expect(classifyStoreError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe('transient');
  });

  it('knows nothing of anything else', () => {
    expect(classifyStoreError(new TypeError('undefined is not a function'))).toBe('unknown');
    expect(classifyStoreError('a string')).toBe('unknown');
  });
});
