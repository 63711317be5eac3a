import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/** The real Claude Code CLI, installed as a devDependency: the binary its package.json names. */
const manifest = fileURLToPath(import.meta.resolve('@anthropic-ai/claude-code/package.json'));
const CLAUDE = join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { claude: string } }).bin.claude);
const CLI_TIMEOUT_MS = 50_000;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `claude -p` headless, as a user points it at a gateway: only the base URL (the origin, the
 * CLI adds /v1/messages) and a key of the stack; a fresh HOME and working folder; telemetry,
 * updates and other traffic off (there is no internet here). Every tool stays on. In `-p` mode this
 * CLI sends no side request to its small "haiku" model (seen in the gateway's metrics: only
 * /v1/messages on the model asked for), so that slot is left at its default.
 */
function runClaude(prompt: string, model: string, cwd: string, home: string): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: new URL(stack.baseUrl).origin,
    ANTHROPIC_API_KEY: stack.apiKey,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  return new Promise((done) => {
    execFile(
      CLAUDE,
      ['-p', prompt, '--output-format', 'json', '--model', model],
      { cwd, env, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The gateway's answers to POST /v1/messages by status, from its metrics: Claude Code quietly
 * retries a refused request with fewer features, so a passing run alone would hide a refusal.
 */
async function messagesAnswers(): Promise<Map<string, number>> {
  const text = await (await fetch(stack.metricsUrls['api-gateway']!)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^gateway_http_requests_total\{route="\/v1\/messages",method="POST",status="(\d+)"[^}]*\} (\d+)$/gm)) {
    counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return counts;
}

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** One model per upstream format: Anthropic's relayed as it is, OpenAI's translated both ways. */
describe.each(['sim/claude-sonnet', 'sim/gpt-4o-mini'])('Claude Code (claude -p) through the gateway on %s', (model) => {
  it('reads a file with its Read tool and answers from it, exit 0', { timeout: 60_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'claude-code-cwd-'));
    const home = mkdtempSync(join(tmpdir(), 'claude-code-home-'));
    folders.push(cwd, home);
    writeFileSync(join(cwd, 'note.txt'), 'The secret word is pumpernickel.\n');

    const before = await messagesAnswers();
    // The simulated model calls the offered tool the prompt names, on the file named after it,
    // relative to the working directory Claude Code states in its instructions.
    const run = await runClaude('Read note.txt and tell me the secret word.', model, cwd, home);

    const context = `exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`;
    expect(run.code, context).toBe(0);
    const result = JSON.parse(run.stdout) as { type: string; is_error: boolean; num_turns: number; result: string };
    expect(result, context).toMatchObject({ type: 'result', is_error: false });
    // Two model turns: the Read call, then the answer quoting what the tool read.
    expect(result.num_turns).toBeGreaterThanOrEqual(2);
    expect(result.result).toContain('The secret word is pumpernickel.');

    const after = await messagesAnswers();
    const answered = [...after].map(([status, count]) => [status, count - (before.get(status) ?? 0)] as const).filter(([, n]) => n > 0);
    expect(Object.fromEntries(answered), 'every request the CLI sent was answered 200').toEqual({ '200': expect.any(Number) });
    expect(after.get('200')! - (before.get('200') ?? 0)).toBeGreaterThanOrEqual(2);
  });
});
