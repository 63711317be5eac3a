import { expect } from 'vitest';

/**
 * Asserts that a model's read-back equals what was written, field by field, so a column
 * whose type or name drifted between schema.prisma and the SQL migration fails loudly.
 */
export function expectRoundTrip(written: Record<string, unknown>, read: Record<string, unknown> | null): void {
  expect(read).not.toBeNull();
  for (const [field, value] of Object.entries(written)) {
    const actual = (read as Record<string, unknown>)[field];
    if (value instanceof Date) expect(actual, field).toEqual(value);
    else if (value !== null && typeof value === 'object' && 'toFixed' in value) expect(String(actual), field).toBe(String(value));
    else if (value instanceof Uint8Array) expect(Buffer.from(actual as Uint8Array).equals(Buffer.from(value)), field).toBe(true);
    else expect(actual, field).toEqual(value);
  }
}

/** Every model in the generated client must be covered by a round-trip case. */
export function expectAllModelsCovered(modelNames: Record<string, string>, covered: string[]): void {
  expect([...covered].sort()).toEqual(Object.values(modelNames).sort());
}
