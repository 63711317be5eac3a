import { describe, expect, it } from 'vitest';
import { REQUEST_ROUTES } from '../bus-permissions.js';
import * as catalog from './messages.js';
import { MESSAGE_TENANCY, tenancyOf } from './message-tenancy.js';

/** Every request and stream of the catalog (`messages.ts`): what a service can serve with `@MessagePattern(X.subject)`. */
function servedSubjects(): string[] {
  const values = Object.values(catalog).flatMap((value): unknown[] =>
    typeof value === 'object' && value !== null && !('kind' in value) ? Object.values(value) : [value],
  );
  return values
    .filter((value): value is { kind: string; subject: string } => typeof value === 'object' && value !== null && 'kind' in value)
    .filter((message) => message.kind === 'rpc' || message.kind === 'stream')
    .map((message) => message.subject);
}

describe('the tenancy of every request on the bus', () => {
  it('declares every request and stream the catalog lets a service serve (the verifier refuses the undeclared)', () => {
    const served = servedSubjects();
    expect(served.length).toBeGreaterThan(80);
    expect(served.filter((subject) => !tenancyOf(subject))).toEqual([]);
  });

  it('asks a signed principal of every request that carries one', () => {
    for (const route of REQUEST_ROUTES) {
      const tenancy = tenancyOf(route.subject)!;
      if (route.principal) expect(tenancy.actsFor, route.subject).toBe('principal');
      else expect(tenancy.actsFor, route.subject).not.toBe('principal');
    }
  });

  it('lets a batch grant in only where batch calls, and makes one only where a batch is made', () => {
    const granted = REQUEST_ROUTES.filter((route) => tenancyOf(route.subject)!.batchGrant).map((route) => route.subject);
    const batchOrItsInference = REQUEST_ROUTES.filter(
      (route) =>
        route.callers.includes('batch') ||
        ['management.byok.resolve', 'management.presets.resolve', 'management.spend.reserve'].includes(route.subject),
    ).map((route) => route.subject);
    expect(granted.sort()).toEqual([...batchOrItsInference, 'batch.batches.create'].sort());
    expect(
      Object.entries(MESSAGE_TENANCY)
        .filter(([, tenancy]) => tenancy.issuesGrant)
        .map(([subject]) => subject),
    ).toEqual(['batch.batches.create']);
  });

  it('knows nothing of a subject outside the contracts', () => {
    expect(tenancyOf('spec.echo')).toBeUndefined();
    expect(tenancyOf('constructor')).toBeUndefined();
  });
});
