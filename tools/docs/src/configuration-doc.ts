import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** The env classes, where they live, and which processes read them. */
const SOURCES = [
  {
    file: 'libs/config/src/common-env.ts',
    classes: { CommonEnv: 'every process', DatabaseServiceEnv: 'management, inference, batch, intern-signing' },
  },
  { file: 'libs/config/src/redis-env.ts', classes: { RedisEnv: 'api-gateway, intern-signing, inference' } },
  { file: 'libs/config/src/response-cache-env.ts', classes: { ResponseCacheEnv: 'api-gateway, inference' } },
  { file: 'apps/api-gateway/src/env.ts', classes: { GatewayEnv: 'api-gateway' } },
  { file: 'apps/management/src/env.ts', classes: { ManagementEnv: 'management' } },
  { file: 'apps/inference/src/env.ts', classes: { InferenceEnv: 'inference' } },
  { file: 'apps/batch/src/env.ts', classes: { BatchEnv: 'batch' } },
  { file: 'apps/intern-signing/src/env.ts', classes: { InternSigningEnv: 'intern-signing' } },
] as const;

/** Variables read outside the env classes (the catalog's placeholders, libraries, scripts), kept by hand. */
const STATIC_PART = 'tools/docs/src/configuration-static.md';

interface Variable {
  name: string;
  defaultValue: string;
  allowed: string;
  meaning: string;
}

/** docs/configuration.md, generated from the env classes' properties, decorators and doc comments. */
export function configurationDoc(root: string): string {
  const sections = SOURCES.flatMap(({ file, classes }) => {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name && node.name.text in classes) {
        const readers = classes[node.name.text as keyof typeof classes];
        found.push(section(node.name.text, readers, variablesOf(node, source)));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });
  return [
    '# Configuration',
    '',
    'Generated from the env classes by `npm run docs` (a unit test fails when this page is stale); edit',
    'the doc comments there. Every variable has a working default for the local stack; each process',
    'validates its own at start and refuses to start on a bad value.',
    '',
    ...sections,
    readFileSync(join(root, STATIC_PART), 'utf8'),
  ].join('\n');
}

function section(className: string, readers: string, variables: Variable[]): string {
  const rows = variables.map((v) => `| ${v.name} | ${v.defaultValue} | ${v.allowed} | ${v.meaning} |`);
  return [`## ${className} (${readers})`, '', '| variable | default | allowed | meaning |', '|---|---|---|---|', ...rows, ''].join('\n');
}

/** A property without a doc comment shares the row of the one before it (one comment over a group). */
function variablesOf(node: ts.ClassDeclaration, source: ts.SourceFile): Variable[] {
  const rows: Variable[] = [];
  for (const property of node.members.filter(ts.isPropertyDeclaration)) {
    const decorators = (ts.getDecorators(property) ?? []).map((d) => d.expression.getText(source));
    const variable = {
      name: `\`${property.name.getText(source)}\``,
      defaultValue: property.initializer
        ? `\`${valueOf(property.initializer.getText(source))}\``
        : property.questionToken
          ? 'unset'
          : 'required',
      allowed: allowedBy(decorators),
      meaning: docOf(property, source),
    };
    const previous = rows.at(-1);
    if (variable.meaning || !previous) rows.push(variable);
    else {
      previous.name += `, ${variable.name}`;
      if (previous.defaultValue !== variable.defaultValue) previous.defaultValue += `, ${variable.defaultValue}`;
      if (previous.allowed !== variable.allowed) previous.allowed = [previous.allowed, variable.allowed].filter(Boolean).join('; ');
    }
  }
  return rows;
}

/** `10 * 1024 * 1024` reads better as its value; anything else is shown as written. */
function valueOf(text: string): string {
  if (/^[\d_\s*+()-]+$/.test(text) && /\d/.test(text)) {
    const value = text
      .replace(/_/g, '')
      .split('*')
      .reduce((product, factor) => product * Number(factor.trim()), 1);
    if (Number.isFinite(value)) return String(value);
  }
  return text.replace(/^'(.*)'$/, '$1');
}

function allowedBy(decorators: string[]): string {
  const argument = (name: string) => decorators.find((d) => d.startsWith(`${name}(`))?.slice(name.length + 1, -1);
  const parts: string[] = [];
  const min = argument('Min');
  const max = argument('Max');
  if (decorators.some((d) => d.startsWith('IsInt'))) parts.push('integer');
  if (decorators.some((d) => d.startsWith('IsBoolean'))) parts.push('`true` / `false`');
  if (min !== undefined || max !== undefined) parts.push(`${min ? valueOf(min) : ''}..${max ? valueOf(max) : ''}`);
  const oneOf = argument('IsIn');
  if (oneOf) parts.push(`one of ${oneOf.startsWith('[') ? oneOf.replace(/'/g, '`') : `\`${oneOf}\``}`);
  if (argument('Matches')) parts.push('a pattern (see the class)');
  return parts.join(', ').replace(/\|/g, '\\|');
}

function docOf(property: ts.PropertyDeclaration, source: ts.SourceFile): string {
  const comment = ts
    .getLeadingCommentRanges(source.text, property.getFullStart())
    ?.map((range) => source.text.slice(range.pos, range.end))
    .filter((text) => text.startsWith('/**'))
    .at(-1);
  if (!comment) return '';
  return comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\|/g, '\\|');
}
