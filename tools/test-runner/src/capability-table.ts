/**
 * `node tools/test-runner/src/capability-table.ts <vitest JSON report>...`: the provider ×
 * capability table of docs/providers/conformance.md, derived from test results rather than
 * written by hand. Chat to cache come from the conformance suite (conformance.int-spec.ts): a
 * capability is ✓ when every case of it ran and passed on that subject, ✗ with the subject's
 * declared reason when every case was skipped. Embeddings, batch and count tokens are not in that
 * table; each cell names the test that shows it, and is ✓ or ✗ only if that test passed in the reports.
 */
import { readFileSync } from 'node:fs';

interface Assertion {
  ancestorTitles: string[];
  title: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  meta?: { lacks?: string };
}
interface Report {
  testResults: { name: string; assertionResults: Assertion[] }[];
}

const reports = process.argv.slice(2).map((path) => JSON.parse(readFileSync(path, 'utf8')) as Report);
const results = reports.flatMap((report) =>
  report.testResults.flatMap((file) => file.assertionResults.map((assertion) => ({ ...assertion, file: file.name }))),
);

type Mode = 'complete' | 'stream';
/** Conformance cases per capability (case name prefix, and the mode when it matters). */
const CASES: Record<string, { name: string; mode?: Mode }[]> = {
  chat: ['plain answer', 'multi-turn', 'max tokens'].map((name) => ({ name, mode: 'complete' as const })),
  stream: [
    ...['plain answer', 'multi-turn', 'max tokens'].map((name) => ({ name, mode: 'stream' as const })),
    { name: 'cut stream' },
    { name: 'error event mid-stream' },
    { name: 'cancellation mid-stream' },
  ],
  tools: [
    { name: 'one tool call' },
    { name: 'parallel tool calls' },
    { name: 'tool result round trip' },
    { name: 'tool arguments streamed' },
    { name: 'parallel tool results' },
  ],
  JSON: [{ name: 'JSON schema output' }],
  images: [{ name: 'image input' }],
  reasoning: [{ name: 'reasoning' }],
  cache: [{ name: 'cache read usage' }, { name: 'cache writes' }],
  'errors, filters': [
    'refused credential',
    'permission denied',
    'rate limit',
    'quota',
    'context too long',
    'overloaded',
    'server error',
    'provider timeout',
    'content filter',
  ].map((name) => ({ name })),
};

/** Rows: the subject names of conformance.int-spec.ts, in its order. */
const subjects = [
  ...new Set(
    results
      .filter((r) => r.ancestorTitles[0] === 'provider conformance' && r.ancestorTitles.length === 2 && !r.ancestorTitles[1]!.includes(' '))
      .map((r) => r.ancestorTitles[1]!),
  ),
];

const notes: string[] = [];
function note(text: string): string {
  if (!notes.includes(text)) notes.push(text);
  return `[${notes.indexOf(text) + 1}]`;
}

function conformanceCell(subject: string, capability: string): string {
  const runs = results.filter(
    (r) =>
      r.ancestorTitles[1] === subject &&
      CASES[capability]!.some(({ name, mode }) => r.title.startsWith(name) && (mode === undefined || r.title.endsWith(`(${mode})`))),
  );
  if (runs.length === 0) return 'not run';
  const failed = runs.filter((r) => r.status === 'failed');
  if (failed.length > 0) return `FAILED (${failed.length})`;
  const skipped = runs.filter((r) => r.status === 'skipped');
  const reasons = [...new Set(skipped.map((r) => r.meta?.lacks ?? 'skipped'))];
  const cases = [...new Set(skipped.map((r) => CASES[capability]!.find(({ name }) => r.title.startsWith(name))!.name))];
  if (skipped.length === runs.length) return `✗ ${reasons.map(note).join('')}`;
  if (skipped.length === 0) return `✓ ${runs.length}/${runs.length}`;
  return `✓ ${runs.length - skipped.length}/${runs.length}, not: ${cases.join('; ')} ${reasons.map(note).join('')}`;
}

/** Evidence outside the conformance table: the test whose pass shows the cell, and what the cell then says. */
interface Evidence {
  file: string;
  title: RegExp;
  ancestor?: string;
  says: string;
}
const HOSTS = subjects.filter((s) => !['gemini', 'vertex', 'openai', 'anthropic', 'bedrock', 'azure', 'azure-entra'].includes(s));
const byHost = (host: string): Evidence[] => [
  { file: 'host-embeddings.int-spec.ts', ancestor: host, title: /^embeds text/, says: '✓' },
  {
    file: 'host-embeddings.int-spec.ts',
    title: new RegExp(`^${host} has no embeddings endpoint`),
    says: '✗ (no endpoint; a 400 names it)',
  },
];
const EMBEDDINGS: Record<string, Evidence[]> = {
  openai: [{ file: 'openai-embeddings.client.int-spec.ts', title: /^returns float vectors/, says: '✓' }],
  azure: [{ file: 'azure.adapter.int-spec.ts', title: /^embeddings on a deployment/, says: '✓' }],
  'azure-entra': [{ file: 'azure.adapter.int-spec.ts', title: /^embeddings on a deployment/, says: '✓ (as azure)' }],
  gemini: [{ file: 'gemini.e2e-spec.ts', title: /^embeddings on the Gemini API/, says: '✓ batchEmbedContents' }],
  vertex: [{ file: 'vertex-embeddings.int-spec.ts', title: /^one :predict call/, says: '✓ :predict' }],
  bedrock: [{ file: 'bedrock.adapter.int-spec.ts', title: /^embeddings: Titan/, says: '✓ Titan' }],
  ...Object.fromEntries(HOSTS.map((host) => [host, byHost(host)])),
};
const BATCH: Record<string, Evidence[]> = {
  openai: [{ file: 'native-batches.int-spec.ts', title: /^chat on an OpenAI-format endpoint/, says: '✓ native' }],
  anthropic: [{ file: 'native-batches.int-spec.ts', title: /^messages and chat on an Anthropic-format endpoint/, says: '✓ native' }],
};
const COUNT: Record<string, Evidence[]> = {
  gemini: [{ file: 'gemini.e2e-spec.ts', title: /^counts tokens/, says: '✓ native' }],
  vertex: [{ file: 'gemini.e2e-spec.ts', title: /^counts tokens/, says: '✓ native' }],
  anthropic: [{ file: 'messages-today.e2e-spec.ts', title: /^messages.countTokens counts with the right counter/, says: '✓ native' }],
  openai: [{ file: 'gemini.e2e-spec.ts', title: /^counts tokens/, says: 'estimate' }],
};

function evidenceCell(table: Record<string, Evidence[]>, subject: string, otherwise: string): string {
  for (const evidence of table[subject] ?? []) {
    const found = results.filter(
      (r) =>
        r.file.endsWith(evidence.file) &&
        evidence.title.test(r.title) &&
        (evidence.ancestor === undefined || r.ancestorTitles.includes(evidence.ancestor)),
    );
    if (found.length === 0) continue;
    return found.every((r) => r.status === 'passed') ? evidence.says : `FAILED (${evidence.file})`;
  }
  return (table[subject] ?? []).length > 0 ? 'not run' : otherwise;
}

const columns = [...Object.keys(CASES), 'embeddings', 'batch', 'count tokens'];
const rows = subjects.map((subject) => [
  subject,
  ...Object.keys(CASES).map((capability) => conformanceCell(subject, capability)),
  evidenceCell(EMBEDDINGS, subject, subject === 'anthropic' ? '✗ (no API)' : 'not tested'),
  evidenceCell(BATCH, subject, 'lines run by the gateway (not per provider here)'),
  evidenceCell(COUNT, subject, 'estimate (not per provider here)'),
]);
console.log(`| provider | ${columns.join(' | ')} |`);
console.log(`| ${columns.map(() => '---').join(' | ')} | --- |`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log('');
notes.forEach((text, index) => console.log(`[${index + 1}] ${text}  `));
