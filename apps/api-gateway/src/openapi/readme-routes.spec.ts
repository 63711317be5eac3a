import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README names every route the gateway serves, and only those (issue 8: docs that match the
 * code). The routes are read from the committed OpenAPI document, which openapi-document.spec.ts
 * keeps equal to what the controllers register. A route is named in the README as
 * `METHOD /path` between backticks, with the document's `{param}` spelling.
 */
const ROOT = resolve(import.meta.dirname, '../../../..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function documentedRoutes(): Set<string> {
  const document = JSON.parse(readFileSync(resolve(ROOT, 'docs/openapi.json'), 'utf8')) as {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
  };
  const routes = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of METHODS) if (operations[method]) routes.add(`${method.toUpperCase()} ${path}`);
  }
  return routes;
}

function readmeRoutes(): Set<string> {
  const readme = readFileSync(resolve(ROOT, 'apps/api-gateway/README.md'), 'utf8');
  return new Set([...readme.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`\s]*)`/g)].map((match) => match[1]!));
}

describe('api-gateway README', () => {
  it('names every registered route', () => {
    const named = readmeRoutes();
    expect([...documentedRoutes()].filter((route) => !named.has(route))).toEqual([]);
  });

  it('names no route the gateway does not register', () => {
    const registered = documentedRoutes();
    expect([...readmeRoutes()].filter((route) => !registered.has(route))).toEqual([]);
  });
});
