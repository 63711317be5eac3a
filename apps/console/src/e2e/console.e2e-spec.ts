import AxeBuilder from '@axe-core/playwright';
import { linkIdentity } from '@gw/oidc-provider/headless-login';
import type {} from '@gw/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/*
 * The console in Debian's Chromium, through the real stack: SSO through the local OIDC
 * provider, a key created on the keys page and used with the openai client, that request in
 * the explorer with its cost, a write without the CSRF token refused, an accessibility scan of
 * every page, and logout everywhere ending the session server side. Screenshots go to
 * .test-results/console/ (and docs/console/ with CONSOLE_SCREENSHOTS=1).
 */
const stack = inject('stack');
const origin = new URL(stack.baseUrl).origin;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shotDirs = [join('.test-results', 'console'), ...(process.env.CONSOLE_SCREENSHOTS ? [join('docs', 'console')] : [])];
const PAGES = [
  { path: '/', name: 'overview', heading: 'Overview' },
  { path: '/generations', name: 'generations', heading: 'Generations' },
  { path: '/keys', name: 'keys', heading: 'API keys' },
  { path: '/presets', name: 'presets', heading: 'Presets' },
  { path: '/byok', name: 'byok', heading: 'BYOK credentials' },
  { path: '/batches', name: 'batches', heading: 'Batches' },
  { path: '/credits', name: 'credits', heading: 'Credits' },
  { path: '/workspaces', name: 'members-budgets', heading: 'Members & budgets' },
  { path: '/guardrails', name: 'guardrails', heading: 'Guardrails' },
];

/** A user of their own (a new workspace they own, with credits), linked to the provider's `dana`. */
async function newLinkedOwner(): Promise<void> {
  const created = JSON.parse(
    execFileSync(
      process.execPath,
      [
        'apps/management/dist/cli/create-key.js',
        '--json',
        '--management',
        '--name',
        'console e2e',
        '--email',
        `console-${randomUUID()}@example.com`,
        '--credits',
        '5',
      ],
      { env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl }, encoding: 'utf8' },
    ),
  ) as { secret: string };
  const linked = await linkIdentity({ baseUrl: stack.baseUrl, apiKey: created.secret, login: 'dana', password: 'dana-password' });
  expect(linked.status).toBe(200);
}

async function screenshot(page: Page, name: string): Promise<void> {
  for (const dir of shotDirs) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  }
}

/** The page's heading is shown and nothing is loading any more. */
async function settled(page: Page, heading: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('[role=status] .mantine-Loader-root').first().waitFor({ state: 'detached' });
}

async function open(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(`${origin}/console${path}`);
  await settled(page, heading);
}

/** Through the navigation, as a person would (no reload: the app routes itself). */
async function go(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: label, exact: true }).click();
  await settled(page, label);
}

/** Timings are only meaningful on an idle machine (shared CI hosts run many suites at once). */
const machineBusy = () => loadavg()[0]! / availableParallelism() > 1.5;

describe('the web console in a browser', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await newLinkedOwner();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it(
    'signs in with SSO through the local OIDC provider into a session cookie, with no secret in browser storage',
    { timeout: 120_000 },
    async () => {
      const started = Date.now();
      await page.goto(`${origin}/console/`);
      await page.getByRole('link', { name: 'Sign in with SSO' }).click();
      await page.locator('input[name=login]').fill('dana');
      await page.locator('input[name=password]').fill('dana-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await settled(page, 'Overview');
      console.info(`console: SSO sign-in to a loaded overview in ${Date.now() - started} ms`);
      const cookie = (await context.cookies()).find((candidate) => candidate.name === 'gw_console');
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/console' });
      const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage, ...window.sessionStorage }));
      expect(stored).not.toMatch(/sk-gw|gw_console/);
      await expect(page.evaluate(() => document.cookie)).resolves.not.toContain('gw_console');
    },
  );

  it('creates a key whose secret is shown once, and the openai client can use it', { timeout: 180_000 }, async () => {
    await go(page, 'API keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('from the console');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^sk-gw-v1-[0-9a-f]{64}$/);
    await page.getByTestId('key-row').filter({ hasText: 'from the console' }).waitFor();
    await screenshot(page, 'keys-created');
    const openai = new OpenAI({ apiKey: secret, baseURL: stack.baseUrl });
    const completion = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello from the console test' }],
    });
    expect(completion.choices[0]?.message.content).toBeTruthy();

    // The request shows in the explorer within seconds, with the cost the API reports.
    const { data: generation } = (await (
      await fetch(`${stack.baseUrl}/generation?id=${completion.id}`, { headers: { authorization: `Bearer ${secret}` } })
    ).json()) as { data: { total_cost: number } };
    expect(generation.total_cost).toBeGreaterThan(0);
    const shownCost = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    }).format(generation.total_cost);
    await go(page, 'Generations');
    await expect(page.getByTestId('generation-cost').first().textContent()).resolves.toBe(shownCost);
    await page.getByTestId('generation-row').first().getByRole('button').click();
    await page.getByTestId('detail-total-cost').waitFor();
    await expect(page.getByTestId('detail-total-cost').textContent()).resolves.toBe(shownCost);
    await screenshot(page, 'generation-detail');
    await page.keyboard.press('Escape');

    // The overview's total is the sum the generations list gives.
    await go(page, 'Overview');
    await expect(page.getByTestId('overview-total-spend').textContent()).resolves.toBe(shownCost);
    await expect(page.getByTestId('overview-total-requests').textContent()).resolves.toBe('1');
  });

  it('refuses a write without the CSRF token, and one from another origin', async () => {
    const statuses = await page.evaluate(async () => {
      const session = (await (await fetch('/console/auth/session')).json()) as { data: { csrf_token: string } };
      const write = (headers: Record<string, string>) =>
        fetch('/console/api/v1/keys', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{"name":"csrf"}',
        }).then(async (response) => ({ status: response.status, body: await response.text() }));
      return {
        none: await write({}),
        wrong: await write({ 'x-csrf-token': 'f'.repeat(64) }),
        read: (await fetch('/console/api/v1/keys')).status,
        token: session.data.csrf_token.length,
      };
    });
    expect(statuses.none.status).toBe(403);
    expect(statuses.none.body).toContain('csrf_refused');
    expect(statuses.wrong.status).toBe(403);
    expect(statuses.read).toBe(200);
    expect(statuses.token).toBe(64);
    // A cross-site page cannot forge the Origin header: a request that carries another one is refused.
    const forged = await context.request.post(`${origin}/console/api/v1/keys`, {
      headers: { origin: 'https://evil.example', 'x-csrf-token': 'x' },
      data: { name: 'forged' },
    });
    expect(forged.status()).toBe(403);
  });

  it(
    'has no serious or critical accessibility findings on any page, at 1280 px, on a phone and in dark mode',
    { timeout: 400_000 },
    async () => {
      const findings: string[] = [];
      const scan = async (target: Page, name: string) => {
        const result = await new AxeBuilder({ page: target }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
        for (const violation of result.violations.filter((found) => found.impact === 'serious' || found.impact === 'critical')) {
          findings.push(
            `${name}: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
          );
        }
      };
      for (const target of PAGES) {
        await open(page, target.path, target.heading);
        await screenshot(page, target.name);
        await scan(page, target.name);
      }
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await open(phone, '/', 'Overview');
      await screenshot(phone, 'overview-phone');
      await scan(phone, 'overview (phone)');
      await phone.close();
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.evaluate(() => window.localStorage.removeItem('gw-console-color-scheme'));
      for (const target of [PAGES[0]!, PAGES[2]!]) {
        await open(page, target.path, target.heading);
        await screenshot(page, `${target.name}-dark`);
        await scan(page, `${target.name} (dark)`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      expect(findings).toEqual([]);
    },
  );

  it('loads the overview cold (empty cache) in under 2 s, compressed', { timeout: 120_000 }, async () => {
    const cold = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await cold.addCookies((await context.cookies()).filter((cookie) => cookie.name === 'gw_console'));
    const fresh = await cold.newPage();
    const started = Date.now();
    await fresh.goto(`${origin}/console/`);
    await settled(fresh, 'Overview');
    await fresh.locator('.recharts-surface').first().waitFor();
    const elapsed = Date.now() - started;
    const bytes = await fresh.evaluate(() =>
      performance.getEntriesByType('resource').reduce((sum, entry) => sum + (entry as PerformanceResourceTiming).transferSize, 0),
    );
    console.info(`console: cold load of the overview ${elapsed} ms, ${Math.round(bytes / 1024)} KB transferred, load ${loadavg()[0]}`);
    await cold.close();
    // Compressed, the overview with its chart library stays a few hundred KB.
    expect(bytes).toBeLessThan(450 * 1024);
    if (machineBusy()) console.warn('console: the machine is busy; the 2 s budget is not judged on this run');
    else expect(elapsed).toBeLessThan(2_000);
  });

  it('signs out everywhere: the session cookie no longer works, in this browser or any copy of it', { timeout: 120_000 }, async () => {
    const copied = (await context.cookies()).filter((cookie) => cookie.name === 'gw_console');
    expect(copied).toHaveLength(1);
    await open(page, '/', 'Overview');
    await page.getByRole('button', { name: /^Account of / }).click();
    await page.getByRole('menuitem', { name: 'Sign out everywhere' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await expect(page.evaluate(() => fetch('/console/api/v1/keys').then((response) => response.status))).resolves.toBe(401);
    // A copy of the old cookie (another tab, a stolen one) is refused too: its key is gone server side.
    const other = await browser.newContext();
    await other.addCookies(copied);
    const answer = await other.request.get(`${origin}/console/auth/session`);
    expect(answer.status()).toBe(401);
    await other.close();
  });
});
