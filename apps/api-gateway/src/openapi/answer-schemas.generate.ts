import { createGenerator } from 'ts-json-schema-generator';
import { join } from 'node:path';
import type { JsonSchema } from './request-schemas.js';

/** Where the named answer types live (one alias or interface per JSON body the API answers). */
const ANSWERS_SOURCE = 'libs/contracts/src/http/http-answers.ts';
/** The generated schemas, committed, read by the gateway at boot (`npm run openapi` rewrites it). */
export const ANSWER_SCHEMAS_FILE = 'apps/api-gateway/src/openapi/answer-schemas.json';

const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * JSON Schemas of the response bodies, generated from the TypeScript view types with
 * ts-json-schema-generator (the views are interfaces: nothing of them exists at run time, so
 * this runs at `npm run openapi` and its output is committed; a unit test fails when stale).
 * The answer aliases are inlined, `DataEnvelope<X>`-style names made component names.
 */
export function generateAnswerSchemas(repoRoot: string): Record<string, JsonSchema> {
  const generated = createGenerator({
    path: join(repoRoot, ANSWERS_SOURCE),
    tsconfig: join(repoRoot, 'libs/contracts/tsconfig.json'),
    type: '*',
    expose: 'export',
    topRef: true,
    jsDoc: 'extended',
    skipTypeCheck: true,
    additionalProperties: true,
    sortProps: false,
  }).createSchema('*');
  const definitions = generated.definitions as Record<string, JsonSchema>;
  const targetOf = (schema: JsonSchema) =>
    typeof schema.$ref === 'string' && Object.keys(schema).length <= 2
      ? decodeURIComponent(schema.$ref.replace('#/definitions/', ''))
      : undefined;
  // An alias is the schema it names, under its own name.
  for (const [name, schema] of Object.entries(definitions)) {
    const target = targetOf(schema);
    if (target && definitions[target])
      definitions[name] = { ...definitions[target], ...(schema.description ? { description: schema.description } : {}) };
  }
  const rename = (name: string) => (COMPONENT_NAME.test(name) ? name : name.replace(/[^a-zA-Z0-9._-]+/g, '_').replace(/_+$/, ''));
  const text = JSON.stringify(definitions).replace(/"#\/definitions\/([^"]+)"/g, (_match, ref: string) =>
    JSON.stringify(`#/components/schemas/${rename(decodeURIComponent(ref))}`),
  );
  const renamed = Object.fromEntries(
    Object.entries(JSON.parse(text) as Record<string, JsonSchema>).map(([name, schema]) => [rename(name), schema]),
  );
  // Keep what an answer reaches: generic instantiations only its alias used are dropped.
  const kept = new Set<string>();
  const visit = (name: string) => {
    if (kept.has(name) || !renamed[name]) return;
    kept.add(name);
    for (const match of JSON.stringify(renamed[name]).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) visit(match[1]!);
  };
  Object.keys(renamed)
    .filter((name) => name.endsWith('Answer'))
    .forEach(visit);
  return Object.fromEntries(
    Object.entries(renamed)
      .filter(([name]) => kept.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
