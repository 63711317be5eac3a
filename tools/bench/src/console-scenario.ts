import { existsSync } from 'node:fs';
import type { IsolatedStack } from '@gw/stack';
import { chromium } from 'playwright-core';
import { below, type Goal } from './goals.ts';
import { percentile } from './stats.ts';

/** Issue 32: the overview loads cold (empty browser cache) in under 2 s on this machine. */
const GOAL_MS = 2_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ConsoleScenarioResult {
  loads: number;
  /** Navigation to the overview's heading and first chart drawn, each in a new browser context (empty cache). */
  coldLoadMs: { p50: number; max: number; all: number[] };
  /** Bytes over the wire for one cold load (compressed), as the browser's resource timings count them. */
  transferredKiB: number;
  goals: Goal[];
  problems: string[];
}

/**
 * The console's cold load in Debian's Chromium: signed in with the run's management key (the
 * key sign-in, so no SSO round trip is measured), then `loads` times a new context with only the
 * session cookie opens /console/ and waits for the overview's heading, no loader left and the
 * first chart. Run after the chat rounds, so the overview has requests to chart.
 */
export async function consoleScenario(stack: IsolatedStack, loads: number): Promise<ConsoleScenarioResult> {
  if (!existsSync(CHROMIUM)) {
    return { loads: 0, coldLoadMs: { p50: 0, max: 0, all: [] }, transferredKiB: 0, goals: [goal(undefined)], problems: [] };
  }
  const origin = new URL(stack.baseUrl).origin;
  const signIn = await fetch(`${origin}/console/auth/key`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ key: stack.managementKey }),
  });
  if (signIn.status !== 200) throw new Error(`console key sign-in answered ${signIn.status}: ${await signIn.text()}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((header) => header.split(';')[0]!)
    .find((pair) => pair.startsWith('gw_console='));
  if (!cookie) throw new Error('console key sign-in set no gw_console cookie');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const all: number[] = [];
  let transferred = 0;
  const problems: string[] = [];
  try {
    // One load first, not counted: Chromium's own start-up (profile, GPU process) is not the page's.
    for (let index = 0; index <= loads; index += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const value = cookie.slice('gw_console='.length);
        await context.addCookies([
          { name: 'gw_console', value, url: `${origin}/console/`, httpOnly: true, secure: true, sameSite: 'Strict' },
        ]);
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        const started = performance.now();
        await page.goto(`${origin}/console/`);
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await page.locator('[role=status] .mantine-Loader-root').first().waitFor({ state: 'detached' });
        await page.locator('.recharts-surface').first().waitFor();
        const elapsed = Math.round(performance.now() - started);
        if (index === 0) continue;
        all.push(elapsed);
        transferred = await page.evaluate(() =>
          performance
            .getEntriesByType('resource')
            .reduce((sum, entry) => sum + (entry as unknown as { transferSize: number }).transferSize, 0),
        );
      } catch (error) {
        problems.push(`console cold load ${index}: ${(error as Error).message.split('\n')[0]}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  const sorted = [...all].sort((a, b) => a - b);
  const p50 = sorted.length ? percentile(sorted, 50) : undefined;
  return {
    loads: all.length,
    coldLoadMs: { p50: p50 ?? 0, max: sorted.at(-1) ?? 0, all },
    transferredKiB: Math.round(transferred / 1024),
    goals: [goal(p50)],
    problems,
  };
}

const goal = (p50: number | undefined) => below('console overview cold load (median)', p50, GOAL_MS, 'ms');

export function formatConsole(result: ConsoleScenarioResult): string {
  if (result.loads === 0) return `Console: not measured (no Chromium at ${CHROMIUM}).`;
  return (
    `Console overview, cold (empty cache, new context each): p50 ${result.coldLoadMs.p50} ms, max ${result.coldLoadMs.max} ms ` +
    `over ${result.loads} loads [${result.coldLoadMs.all.join(', ')}]; ${result.transferredKiB} KiB transferred (compressed).`
  );
}
