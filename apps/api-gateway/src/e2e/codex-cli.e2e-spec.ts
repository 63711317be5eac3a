import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/** The launcher of the real Codex CLI (`@openai/codex`, its native binary inside the package). */
const CODEX = createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');
const SECRET = 'the parrot is named Kestrel-4471';

interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `codex exec` headless with the given config, in its own CODEX_HOME and working folder. */
function codexExec(home: string, cwd: string, prompt: string): Promise<CodexRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CODEX, 'exec', '--json', '--output-last-message', join(home, 'last-message.txt'), prompt],
      {
        cwd,
        timeout: 50_000,
        // Only what the test gives: no key or setting of the machine leaks in.
        env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, GATEWAY_API_KEY: stack.apiKey },
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    // The prompt is the argument: an open stdin would be read as more of it.
    child.stdin?.end();
  });
}

/** A CODEX_HOME whose config sets only the model and a custom provider: the gateway's /v1, the key's variable, the Responses wire API. */
function codexHome(model: string): string {
  const home = mkdtempSync(join(tmpdir(), 'gw-codex-home-'));
  writeFileSync(
    join(home, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "gateway"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
      '[model_providers.gateway]',
      'name = "Inference gateway"',
      `base_url = "${stack.baseUrl}"`,
      'env_key = "GATEWAY_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
  return home;
}

describe('the Codex CLI (codex exec) against the gateway, with only a custom provider configured', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  // Chat completions upstream, OpenAI's Responses API upstream, and an Anthropic-format model.
  it.each(['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet'])(
    '%s: runs the shell command the model asks for and answers with what the file says',
    { timeout: 60_000 },
    async (model) => {
      const home = codexHome(model);
      const work = mkdtempSync(join(tmpdir(), 'gw-codex-work-'));
      folders.push(home, work);
      writeFileSync(join(work, 'note.txt'), `${SECRET}\n`);
      // A git repository, as Codex expects its working folder to be.
      execFileSync('git', ['init', '-q'], { cwd: work, stdio: 'ignore' });
      const run = await codexExec(
        home,
        work,
        'What does note.txt say? To read it, call exec_command with {"cmd": "cat note.txt"} and then tell me.',
      );
      const events = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; item?: { type: string; command?: string; aggregated_output?: string } });
      expect(run.code, `codex exec failed:\n${run.stderr}\n${run.stdout}`).toBe(0);
      const command = events.find((event) => event.type === 'item.completed' && event.item?.type === 'command_execution');
      expect(command?.item?.command).toContain('cat note.txt');
      expect(command?.item?.aggregated_output).toContain(SECRET);
      expect(readFileSync(join(home, 'last-message.txt'), 'utf8')).toContain(SECRET);
    },
  );

  it('its web_search tool runs as the gateway web search: the answer cites the result', { timeout: 60_000 }, async () => {
    const home = codexHome('sim/gpt-4o-mini');
    const work = mkdtempSync(join(tmpdir(), 'gw-codex-work-'));
    folders.push(home, work);
    execFileSync('git', ['init', '-q'], { cwd: work, stdio: 'ignore' });
    const run = await codexExec(home, work, 'Search the web for the capital of Atlantis.');
    expect(run.code, `codex exec failed:\n${run.stderr}\n${run.stdout}`).toBe(0);
    expect(readFileSync(join(home, 'last-message.txt'), 'utf8')).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
  });
});
