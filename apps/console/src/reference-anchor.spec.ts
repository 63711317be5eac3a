import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationOf, type OpenApiDocument } from './reference-anchor';

const document = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;

describe('operationOf', () => {
  it("opens the reference at the operation a page names first, in the gateway's own document", () => {
    expect(operationOf(document, 'GET /v1/keys')).toEqual({ tag: 'Keys', operationId: 'Keys_list' });
    expect(operationOf(document, 'GET/POST /v1/keys')).toEqual({ tag: 'Keys', operationId: 'Keys_list' });
    expect(operationOf(document, 'PATCH /v1/keys/{hash}')).toEqual({ tag: 'Keys', operationId: 'Keys_update' });
  });

  it('resolves the first operation of every page header (the link each page shows)', () => {
    const pages = new URL('./pages/', import.meta.url);
    const named = readdirSync(pages)
      .filter((file) => file.endsWith('.tsx'))
      .flatMap((file) =>
        [...readFileSync(new URL(file, pages), 'utf8').matchAll(/docs="([^"]+)"/g)].map((match) => match[1]!.split(',')[0]!),
      );
    expect(named.length).toBeGreaterThanOrEqual(12);
    for (const operation of named) expect(operationOf(document, operation), operation).not.toBeNull();
  });

  it('leaves the reference at its top for an operation it does not have', () => {
    expect(operationOf(document, 'GET /v1/nothing-here')).toBeNull();
    expect(operationOf(document, 'TRACE /v1/keys')).toBeNull();
    expect(operationOf(document, '')).toBeNull();
  });
});
