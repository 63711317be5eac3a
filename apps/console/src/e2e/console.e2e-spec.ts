import AxeBuilder from '@axe-core/playwright';
import { linkIdentity } from '@gw/oidc-provider/headless-login';
import type {} from '@gw/testing';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import OpenAI, { APIError, toFile } from 'openai';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { perMillion } from '../prices';

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
  { path: '/interns', name: 'interns', heading: 'Interns' },
  { path: '/models', name: 'models', heading: 'Models & prices' },
  { path: '/audit', name: 'audit-log', heading: 'Audit log' },
  { path: '/docs', name: 'api-reference', heading: 'API reference' },
];

/** The management key of a new user (a new workspace they own, with credits). */
function newManagementKey(): string {
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
  return created.secret;
}

/** A user of their own, linked to the provider's `dana`. */
async function newLinkedOwner(): Promise<string> {
  const secret = newManagementKey();
  const linked = await linkIdentity({ baseUrl: stack.baseUrl, apiKey: secret, login: 'dana', password: 'dana-password' });
  expect(linked.status).toBe(200);
  return secret;
}

/**
 * A member (not an owner) of the workspace, with a standard key, linked to the provider's `erin`.
 * No public route makes a user whose default workspace is another's; the test writes it as
 * management would (as the member-budgets e2e does).
 */
async function newLinkedMember(workspaceId: string): Promise<{ userId: string; key: string }> {
  const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await database.connect();
  const userId = randomUUID();
  const key = `sk-gw-v1-${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;
  try {
    await database.query(`INSERT INTO users (id, email, name, default_workspace_id, updated_at) VALUES ($1, $2, 'Erin', $3, now())`, [
      userId,
      `erin-${userId}@example.com`,
      workspaceId,
    ]);
    await database.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [workspaceId, userId]);
    await database.query(
      `INSERT INTO api_keys (hash, name, label, kind, workspace_id, creator_user_id, updated_at)
       VALUES ($1, 'erin key', 'sk-gw-v1-erin...', 'standard', $2, $3, now())`,
      [createHash('sha256').update(key).digest('hex'), workspaceId, userId],
    );
  } finally {
    await database.end();
  }
  const linked = await linkIdentity({ baseUrl: stack.baseUrl, apiKey: key, login: 'erin', password: 'erin-password' });
  expect(linked.status).toBe(200);
  return { userId, key };
}

/** A person who shares a workspace of their own with `ownerId`, and no other: returns their user id. */
async function newOrganizationPerson(ownerId: string): Promise<string> {
  const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await database.connect();
  const userId = randomUUID();
  const workspaceId = randomUUID();
  try {
    await database.query(`INSERT INTO workspaces (id, name, updated_at) VALUES ($1, 'Frank''s team', now())`, [workspaceId]);
    await database.query(`INSERT INTO users (id, email, name, default_workspace_id, updated_at) VALUES ($1, $2, 'Frank', $3, now())`, [
      userId,
      `frank-${userId}@example.com`,
      workspaceId,
    ]);
    await database.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner'), ($1, $3, 'member')`, [
      workspaceId,
      userId,
      ownerId,
    ]);
  } finally {
    await database.end();
  }
  return userId;
}

/** Through the provider's login and consent pages, as a person would. */
async function signInWithSso(target: Page, login: string, password: string, heading: string): Promise<void> {
  await target.goto(`${origin}/console/`);
  await target.getByRole('link', { name: 'Sign in with SSO' }).click();
  await target.locator('input[name=login]').fill(login);
  await target.locator('input[name=password]').fill(password);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.getByRole('button', { name: 'Allow' }).click();
  await settled(target, heading);
}

/** Every log line the run's processes wrote so far. */
function stackLogs(): string {
  return readdirSync(stack.logDir)
    .map((file) => readFileSync(join(stack.logDir, file), 'utf8'))
    .join('\n');
}

/** Signs a new browser context in with a key through the sign-in page. */
async function signInWithKey(browser: Browser, key: string, heading: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(`${origin}/console/`);
  await page.getByLabel('Management or operator key').fill(key);
  await page.getByRole('button', { name: 'Sign in with a key' }).click();
  await settled(page, heading);
  return { context, page };
}

/** The status of GET /console/auth/session with these cookies, in a context of their own (a copied cookie). */
async function sessionStatusWith(browser: Browser, cookies: Awaited<ReturnType<BrowserContext['cookies']>>): Promise<number> {
  const other = await browser.newContext();
  try {
    await other.addCookies(cookies);
    return (await other.request.get(`${origin}/console/auth/session`)).status();
  } finally {
    await other.close();
  }
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

/** Serious or critical WCAG 2.1 A/AA findings of the page, in words. */
async function axeFindings(target: Page, name: string): Promise<string[]> {
  // Scan a settled page: a dialog still fading in has half-transparent text, which axe reads as low contrast.
  await target.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'), undefined, {
    timeout: 30_000,
  });
  const result = await new AxeBuilder({ page: target }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((found) => found.impact === 'serious' || found.impact === 'critical')
    .map(
      (violation) => `${name}: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/** What a poll waits for on a loaded machine (the default is one second). */
const POLL = { timeout: 30_000 };

describe('the web console in a browser', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The owner's management key, for reading back through the API what the console did. */
  let ownerKey: string;
  /** A member of the owner's workspace, signed in through SSO as `erin`. */
  let member: { userId: string; key: string };
  /** A standard key of the owner's workspace, and the generations the explorer tests made with it. */
  let explorer: string;
  const made = { fallback: '', cut: '', anthropic: '' };

  const ownerApi = (path: string, init: RequestInit = {}) =>
    fetch(`${stack.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' } });
  /** The ids of GET /v1/generations for the query, newest first (the list the page should show). */
  const apiIds = async (query: string) =>
    (((await (await ownerApi(`/generations?limit=25&${query}`)).json()) as { data: { id: string }[] }).data ?? []).map(({ id }) => id);
  /** Waits until the generation is listed (written moments after its answer). */
  const listed = (id: string) => expect.poll(async () => (await apiIds('')).includes(id), POLL).toBe(true);
  /** After the generation is listed: the next whole second, once it has passed (a time-filter bound between two requests). */
  const nextSecond = async (id: string): Promise<number> => {
    await listed(id);
    const bound = Math.ceil((Date.now() + 1) / 1000) * 1000;
    await new Promise((resolve) => setTimeout(resolve, bound - Date.now() + 50));
    return bound;
  };
  const shownIds = (target: Page) =>
    target
      .getByTestId('generation-row')
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-generation-id')));
  /** An instant as a datetime-local input in India shows it. */
  const inKolkata = (at: number) =>
    new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'Asia/Kolkata',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .format(at)
      .replace(' ', 'T');

  beforeAll(async () => {
    ownerKey = await newLinkedOwner();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
  });

  afterAll(async () => {
    await browser?.close();
  });

  // A failed test may leave a dialog open over the page; the next test starts from a page it can click.
  afterEach(async () => {
    for (let tries = 0; tries < 3 && (await page.getByRole('dialog').count()) > 0; tries++) await page.keyboard.press('Escape');
  });

  it(
    'signs in with SSO through the local OIDC provider into a session cookie, with no secret in browser storage',
    { timeout: 120_000 },
    async () => {
      const started = Date.now();
      await signInWithSso(page, 'dana', 'dana-password', 'Overview');
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

    expect(await axeFindings(page, 'generation detail')).toEqual([]);
    await page.keyboard.press('Escape');

    // The overview's totals are the activity API's (the workspace is new: today's rows are all).
    const activity = async (query: string) =>
      (
        (await (await fetch(`${stack.baseUrl}/activity${query}`, { headers: { authorization: `Bearer ${ownerKey}` } })).json()) as {
          data: { usage: number; requests: number }[];
        }
      ).data;
    const rows = [...(await activity('')), ...(await activity(`?date=${new Date().toISOString().slice(0, 10)}`))];
    const apiSpend = rows.reduce((sum, row) => sum + row.usage, 0);
    const apiRequests = rows.reduce((sum, row) => sum + row.requests, 0);
    expect(apiRequests).toBe(1);
    const shownSpend = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    });
    expect(shownSpend.format(apiSpend)).toBe(shownCost);
    await go(page, 'Overview');
    await page.getByText('From the activity API.').waitFor();
    await expect(page.getByTestId('overview-total-spend').textContent()).resolves.toBe(shownSpend.format(apiSpend));
    await expect(page.getByTestId('overview-total-requests').textContent()).resolves.toBe(String(apiRequests));
    await page.getByText('No failed requests in this period').waitFor();

    // Failed requests of two types show in the overview's errors by type, as the analytics API counts them.
    await expect(openai.chat.completions.create({ model: 'nope/model', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    await expect(openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [] })).rejects.toThrow();
    const failures = async () =>
      (
        (await (
          await fetch(`${stack.baseUrl}/analytics/query`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ metrics: ['error_count'], dimensions: ['error_type'] }),
          })
        ).json()) as { data: { data: Array<{ error_type: string | null; error_count: number }> } }
      ).data.data;
    await expect.poll(async () => (await failures()).length, POLL).toBe(2);
    const apiFailures = (await failures()).reduce((sum, row) => sum + row.error_count, 0);
    expect(apiFailures).toBe(2);
    await page.reload();
    await page.getByText('From the activity API.').waitFor();
    await expect(page.getByTestId('overview-errors-total').textContent()).resolves.toBe(String(apiFailures));
    await expect(page.getByRole('figure', { name: 'Errors by type' }).locator('.recharts-bar-rectangle').count()).resolves.toBe(2);
    await screenshot(page, 'overview-errors');
    expect(await axeFindings(page, 'overview with errors by type')).toEqual([]);
  });

  it(
    'switches content logging on in the explorer; a request made with the openai client then shows its prompt and answer',
    { timeout: 180_000 },
    async () => {
      await go(page, 'Generations');
      // Logged with the setting off: the drawer says why there is no content.
      await page.getByTestId('generation-row').first().getByRole('button').click();
      await expect(page.getByTestId('content-none').textContent()).resolves.toContain('Content logging is off for this workspace');
      await page.keyboard.press('Escape');

      const toggle = page.getByRole('switch', { name: 'Log prompts and answers' });
      await expect(toggle.isChecked()).resolves.toBe(false);
      const saved = page.waitForResponse(
        (response) => response.url().endsWith('/v1/content-logging') && response.request().method() === 'PUT',
      );
      await toggle.click();
      expect((await saved).status()).toBe(200);
      await expect.poll(() => toggle.isChecked(), POLL).toBe(true);
      const setting = (await (await ownerApi('/content-logging')).json()) as { data: { enabled: boolean } };
      expect(setting.data.enabled).toBe(true);

      explorer = (await newStandardKey('explorer')).key;
      const prompt = `What does the explorer keep? ${randomUUID()}`;
      const openai = new OpenAI({ apiKey: explorer, baseURL: stack.baseUrl });
      const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: prompt }] });
      const answer = completion.choices[0]!.message.content!;
      expect(answer).toBeTruthy();
      await expect
        .poll(async () => {
          await open(page, `/generations?id=${completion.id}`, 'Generations');
          await page.getByTestId('content-answer').or(page.getByTestId('content-none')).waitFor();
          return page.getByTestId('content-answer').count();
        }, POLL)
        .toBe(1);
      await expect(page.getByTestId('content-message').allTextContents()).resolves.toEqual([`user${prompt}`]);
      await expect(page.getByTestId('content-answer').textContent()).resolves.toBe(`answer${answer}`);
      await page.getByTestId('content-answer').scrollIntoViewIfNeeded();
      await screenshot(page, 'generation-content');
      expect(await axeFindings(page, 'generation content')).toEqual([]);
      await page.keyboard.press('Escape');
    },
  );

  it(
    "filters by status, provider and a time range in the viewer's zone exactly as the API does, and says why it refuses a value",
    { timeout: 180_000 },
    async () => {
      const openai = new OpenAI({ apiKey: explorer, baseURL: stack.baseUrl, maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: 'filter me' }];
      made.fallback = (await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-fallback', messages })).id;
      const start = await nextSecond(made.fallback);
      // A stream cut mid-way is recorded as a failed generation.
      const cut = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-cut', messages, stream: true });
      let cutError: unknown;
      try {
        for await (const chunk of cut) made.cut ||= chunk.id;
      } catch (caught) {
        cutError = caught;
      }
      expect(cutError).toBeInstanceOf(APIError);
      const end = await nextSecond(made.cut);
      made.anthropic = (await openai.chat.completions.create({ model: 'sim/claude-sonnet', messages })).id;
      await listed(made.anthropic);

      // A viewer in India (UTC+05:30): the times typed are theirs, sent as the instants they name.
      const zone = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light', timezoneId: 'Asia/Kolkata' });
      await zone.addCookies((await context.cookies()).filter((cookie) => cookie.name === 'gw_console'));
      try {
        const viewer = await zone.newPage();
        viewer.setDefaultTimeout(60_000);
        await open(viewer, '/generations', 'Generations');
        const filter = async (apiQuery: string, fill: () => Promise<void>) => {
          await viewer.getByRole('button', { name: 'Clear' }).click();
          await fill();
          await viewer.getByRole('button', { name: 'Filter', exact: true }).click();
          const expected = await apiIds(apiQuery);
          await expect.poll(() => shownIds(viewer), POLL).toEqual(expected);
          return expected;
        };
        const statusFailed = await filter('status=failed', async () => {
          await viewer.getByRole('combobox', { name: 'Status' }).click();
          await viewer.getByRole('option', { name: 'failed' }).click();
        });
        expect(statusFailed).toEqual([made.cut]);
        expect(new URL(viewer.url()).searchParams.get('status')).toBe('failed');

        const byProvider = await filter('provider=simulator-anthropic', () =>
          viewer.getByLabel('Provider', { exact: true }).fill('simulator-anthropic'),
        );
        expect(byProvider).toEqual([made.anthropic]);

        const range = `from=${encodeURIComponent(new Date(start).toISOString())}&to=${encodeURIComponent(new Date(end).toISOString())}`;
        const inRange = await filter(range, async () => {
          await viewer.getByLabel('From (your time)').fill(inKolkata(start));
          await viewer.getByLabel('Until (your time)').fill(inKolkata(end));
        });
        expect(inRange).toEqual([made.cut]);
        const url = new URL(viewer.url());
        expect([url.searchParams.get('from'), url.searchParams.get('to')]).toEqual([
          new Date(start).toISOString(),
          new Date(end).toISOString(),
        ]);
        await screenshot(viewer, 'generations-filtered');

        // A value the API refuses: its 400 in words, not an empty list.
        await viewer.getByLabel('Cost above (USD)').fill('a lot');
        await viewer.getByRole('button', { name: 'Filter', exact: true }).click();
        await viewer.getByRole('alert').filter({ hasText: 'cost_gt must be a decimal number of credits' }).waitFor();
      } finally {
        await zone.close();
      }
    },
  );

  it('exports as CSV exactly the generations the filtered list shows', { timeout: 120_000 }, async () => {
    await open(page, '/generations?provider=simulator-openai', 'Generations');
    const expected = await apiIds('provider=simulator-openai');
    expect(expected).toEqual(expect.arrayContaining([made.fallback, made.cut]));
    expect(expected).not.toContain(made.anthropic);
    await expect.poll(() => shownIds(page), POLL).toEqual(expected);
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await downloaded;
    expect(file.suggestedFilename()).toBe('generations.csv');
    const lines = readFileSync(await file.path(), 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(lines[0]!.split(',')[0]).toBe('id');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(expected);
  });

  it('shows each provider attempt of a generation with its status and latency', { timeout: 120_000 }, async () => {
    const { data } = (await (await ownerApi(`/generation?id=${made.fallback}`)).json()) as {
      data: { provider_responses: { status: number; latency: number }[] };
    };
    expect(data.provider_responses.map((attempt) => attempt.status)).toEqual([503, 200]);
    await open(page, `/generations?id=${made.fallback}`, 'Generations');
    const attempts = page.getByTestId('attempt-row');
    await expect.poll(() => attempts.count(), POLL).toBe(2);
    await expect(attempts.getByTestId('attempt-status').allTextContents()).resolves.toEqual(['503', '200']);
    const ms = new Intl.NumberFormat('en-US');
    await expect(attempts.getByTestId('attempt-latency').allTextContents()).resolves.toEqual(
      data.provider_responses.map((attempt) => `${ms.format(attempt.latency)} ms`),
    );
    await screenshot(page, 'generation-attempts');
    expect(await axeFindings(page, 'generation attempts')).toEqual([]);
    await page.keyboard.press('Escape');
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

  it("sets a member's budget on the members page, and the member's key is refused with 402", { timeout: 180_000 }, async () => {
    const session = await page.evaluate(
      async () => ((await (await fetch('/console/auth/session')).json()) as { data: { user: { workspace_id: string } } }).data,
    );
    member = await newLinkedMember(session.user.workspace_id);
    const openai = new OpenAI({ apiKey: member.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const ask = () =>
      openai.chat.completions.create({ model: 'sim/gpt-4o-mini', max_tokens: 200, messages: [{ role: 'user', content: 'hello' }] });
    await expect(ask()).resolves.toBeTruthy();

    await go(page, 'Members & budgets');
    const row = page.getByTestId('member-row').filter({ hasText: member.userId });
    // People are named by name and email, not by id.
    const erin = `Erin <erin-${member.userId}@example.com>`;
    await row.getByRole('button', { name: `Set budget of ${erin}` }).click();
    const dialog = page.getByRole('dialog', { name: `Budget of ${erin}` });
    await dialog.getByRole('textbox', { name: 'Limit (USD)' }).fill('0.0000001');
    expect(await axeFindings(page, 'member budget dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Save budget' }).click();
    await expect.poll(() => row.getByTestId('member-budget').textContent(), POLL).toContain('daily');

    // Refused before any provider is paid: the worst case of the request is over the budget.
    const status = () =>
      ask().then(
        () => 200,
        (caught: unknown) => (caught instanceof APIError ? caught.status : String(caught)),
      );
    await expect.poll(status, POLL).toBe(402);
    const error = (await ask().catch((caught: unknown) => caught)) as APIError;
    expect(error.status).toBe(402);
    expect(JSON.stringify(error.error)).toContain('member_budget_reached');
  });

  it('adds a person of the organization to the workspace by name, and removes them', { timeout: 180_000 }, async () => {
    const session = await page.evaluate(
      async () => ((await (await fetch('/console/auth/session')).json()) as { data: { user: { id: string; workspace_id: string } } }).data,
    );
    // Frank shares another workspace with the owner, so he is in the organization but not here.
    const frank = await newOrganizationPerson(session.user.id);
    const listed = async () => {
      const answer = await fetch(`${stack.baseUrl}/workspaces/${session.user.workspace_id}/members?limit=100`, {
        headers: { authorization: `Bearer ${ownerKey}` },
      });
      return ((await answer.json()) as { data: Array<{ user_id: string; role: string }> }).data.find((row) => row.user_id === frank);
    };

    await go(page, 'Members & budgets');
    await page.getByRole('button', { name: 'Add members' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add members' });
    await dialog.getByLabel('People').fill('frank');
    await page.getByRole('option', { name: `Frank <frank-${frank}@example.com>` }).click();
    // The list stays open for more picks (over the role field): Escape closes it, not the dialog.
    await dialog.getByLabel('People').press('Escape');
    await expect(dialog.isVisible()).resolves.toBe(true);
    await dialog.getByLabel('Role').click();
    await page.getByRole('option', { name: 'Admin' }).click();
    expect(await axeFindings(page, 'add members dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('member-row').filter({ hasText: `frank-${frank}@example.com` });
    await expect.poll(() => row.count(), POLL).toBe(1);
    await expect(listed()).resolves.toMatchObject({ role: 'admin' });

    await row.getByRole('button', { name: `Remove Frank <frank-${frank}@example.com>` }).click();
    await page
      .getByRole('dialog', { name: `Remove Frank <frank-${frank}@example.com>` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect.poll(() => row.count(), POLL).toBe(0);
    await expect(listed()).resolves.toBeUndefined();
  });

  it(
    'shows a member only what their role may open: no admin page, through the navigation, a link or the API',
    { timeout: 180_000 },
    async () => {
      const memberContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const memberPage = await memberContext.newPage();
        memberPage.setDefaultTimeout(60_000);
        await signInWithSso(memberPage, 'erin', 'erin-password', 'Overview');
        await expect(memberPage.getByRole('navigation').getByRole('link').allTextContents()).resolves.toEqual([
          'Overview',
          'Generations',
          'Presets',
          'Batches',
          'Credits',
          'Models & prices',
          'API reference',
        ]);
        // Members may not read analytics: no breakdowns, the errors by type included.
        await expect(memberPage.getByRole('heading', { name: 'Errors by type' }).count()).resolves.toBe(0);
        await screenshot(memberPage, 'overview-member');
        expect(await axeFindings(memberPage, 'overview (member)')).toEqual([]);
        for (const path of ['/keys', '/byok', '/workspaces', '/guardrails', '/interns', '/audit']) {
          await memberPage.goto(`${origin}/console${path}`);
          await memberPage.getByRole('alert').filter({ hasText: 'This page does not exist or your role cannot open it.' }).waitFor();
          await expect(memberPage.getByRole('heading', { level: 1 }).count(), path).resolves.toBe(0);
        }
        // The session is the member's own standard key: the API itself refuses what the pages hide.
        const answers = await memberPage.evaluate(async () => {
          const session = (await (await fetch('/console/auth/session')).json()) as { data: { csrf_token: string; key_kind: string } };
          const headers = { 'content-type': 'application/json', 'x-csrf-token': session.data.csrf_token };
          const refusal = async (response: Response) => `${response.status} ${await response.text()}`;
          return {
            kind: session.data.key_kind,
            refusals: [
              await refusal(await fetch('/console/api/v1/keys')),
              await refusal(await fetch('/console/api/v1/keys', { method: 'POST', headers, body: '{"name":"member"}' })),
              await refusal(await fetch('/console/api/v1/audit-logs')),
              await refusal(await fetch('/console/api/v1/byok')),
            ],
            // Refused for the role, not signed out: the session still answers.
            after: (await fetch('/console/auth/session')).status,
          };
        });
        expect(answers.kind).toBe('standard');
        expect(answers.after).toBe(200);
        // The API's own refusals (401 or 403 by route, as OpenRouter answers them), each naming the management key.
        for (const refusal of answers.refusals) expect(refusal).toMatch(/^40[13] .*management_key_required/);
      } finally {
        await memberContext.close();
      }
    },
  );

  it("lists a preset's versions and shows the lines that changed between two", { timeout: 120_000 }, async () => {
    // The public API reads presets but has no route that writes them: two versions written as management stores them.
    const session = await page.evaluate(
      async () => ((await (await fetch('/console/auth/session')).json()) as { data: { user: { id: string; workspace_id: string } } }).data,
    );
    const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
    await database.connect();
    try {
      const [presetId, first, second] = [randomUUID(), randomUUID(), randomUUID()];
      await database.query('BEGIN');
      await database.query(
        `INSERT INTO presets (id, workspace_id, slug, name, creator_user_id, latest_version, updated_at)
         VALUES ($1, $2, 'support-bot', 'Support bot', $3, 2, now())`,
        [presetId, session.user.workspace_id, session.user.id],
      );
      for (const [id, version, config, prompt] of [
        [first, 1, { model: 'sim/gpt-4o-mini', temperature: 0.2 }, 'Answer briefly.'],
        [second, 2, { model: 'sim/gpt-4o-mini', temperature: 0.7 }, 'Answer briefly and kindly.'],
      ] as const)
        await database.query(
          `INSERT INTO preset_versions (id, preset_id, version, config, system_prompt, creator_id, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
          [id, presetId, version, JSON.stringify(config), prompt, session.user.id],
        );
      await database.query('UPDATE presets SET designated_version_id = $1 WHERE id = $2', [second, presetId]);
      await database.query('COMMIT');
    } finally {
      await database.end();
    }
    await go(page, 'Presets');
    await page.getByRole('button', { name: 'Support bot' }).click();
    const diff = page.getByLabel('Differences between the two versions');
    // By default the newest version against the one before it.
    await expect.poll(() => diff.innerText(), POLL).toContain('-   "temperature": 0.2');
    const text = await diff.innerText();
    expect(text).toContain('+   "temperature": 0.7');
    expect(text).toContain('-   "system_prompt": "Answer briefly."');
    expect(text).toContain('+   "system_prompt": "Answer briefly and kindly."');
    expect(text).toContain('    "model": "sim/gpt-4o-mini"');
    await screenshot(page, 'presets-diff');
    expect(await axeFindings(page, 'presets (diff)')).toEqual([]);
  });

  it(
    'rotates a key: a new secret with the same settings, the old key disabled, both changes in the audit log',
    { timeout: 120_000 },
    async () => {
      await go(page, 'API keys');
      const row = page.getByTestId('key-row').filter({ hasText: 'from the console' });
      // By the badge: a row's own text holds "Disable" before "Delete", which reads as "disabled…".
      const badge = page.getByText('disabled', { exact: true });
      const before = await row.count();
      const disabledBefore = await row.filter({ has: badge }).count();
      await row.filter({ hasNot: badge }).first().getByRole('button', { name: 'Rotate key from the console' }).click();
      // Asked first in the app's own dialog (ConfirmButton), named by the action.
      const dialog = page.getByRole('dialog', { name: 'Rotate key from the console' });
      await dialog.waitFor();
      expect(await axeFindings(page, 'confirm dialog')).toEqual([]);
      await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
      await page.getByTestId('new-key-secret').waitFor();
      await expect.poll(() => row.count(), POLL).toBe(before + 1);
      await expect(row.filter({ has: badge }).count()).resolves.toBe(disabledBefore + 1);
      const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
      const openai = new OpenAI({ apiKey: secret, baseURL: stack.baseUrl });
      await expect(openai.models.list()).resolves.toBeTruthy();

      await go(page, 'Audit log');
      const audit = page.getByTestId('audit-row');
      await audit.filter({ hasText: 'keys.update' }).filter({ hasText: 'disabled: false → true' }).first().waitFor();
      await expect(audit.filter({ hasText: 'keys.create' }).count()).resolves.toBeGreaterThanOrEqual(2);
      await screenshot(page, 'audit-log');
    },
  );

  it('creates an intern and a key of its own, listed under it', { timeout: 120_000 }, async () => {
    await go(page, 'Interns');
    await page.getByRole('button', { name: 'Create intern' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('console-intern');
    await page.getByRole('textbox', { name: 'Host name' }).fill('intern-host.example');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByTestId('intern-row').filter({ hasText: 'console-intern' }).waitFor();
    await page.getByRole('button', { name: 'Create a key for console-intern' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^sk-gw-v1-[0-9a-f]{64}$/);
    await page.getByTestId('intern-key-row').filter({ hasText: 'console-intern key' }).waitFor();
    // Through the API, the key names its intern (the page lists an intern's keys by it).
    const read = async (path: string) =>
      (await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${ownerKey}` } })).json();
    const interns = (await read('/interns')) as { data: { id: string; name: string }[] };
    const intern = interns.data.find((candidate) => candidate.name === 'console-intern')!;
    const keys = (await read('/keys')) as { data: { name: string; intern_id: string | null }[] };
    expect(keys.data.filter((key) => key.intern_id === intern.id).map((key) => key.name)).toEqual(['console-intern key']);
    await screenshot(page, 'interns');
    expect(await axeFindings(page, 'interns')).toEqual([]);
  });

  it("shows each model's price as the models API answers it", { timeout: 120_000 }, async () => {
    const { data } = (await (await fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer ${stack.apiKey}` } })).json()) as {
      data: { id: string; pricing: { prompt: string } }[];
    };
    const model = data.find((candidate) => candidate.id === 'sim/gpt-4o-mini')!;
    await go(page, 'Models & prices');
    const row = page.getByTestId('model-row').filter({ has: page.getByText('sim/gpt-4o-mini', { exact: true }) });
    await expect(row.getByTestId('model-prompt-price').textContent()).resolves.toBe(`$${perMillion(model.pricing.prompt)}`);
    expect(perMillion(model.pricing.prompt)).toBe('0.15');
  });

  it(
    'tests a BYOK credential with one call to the provider: ok for a good key, refused for a bad one, never the secret',
    { timeout: 120_000 },
    async () => {
      await go(page, 'BYOK credentials');
      for (const [name, key] of [
        ['simulator good', 'sk-sim'],
        ['simulator bad', 'sk-sim-invalid'],
      ] as const) {
        await page.getByRole('button', { name: 'Add credential' }).click();
        await page.getByRole('textbox', { name: 'Provider', exact: true }).fill('simulator-openai');
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
        await page.getByLabel('Provider API key').fill(key);
        await page.getByRole('button', { name: 'Add', exact: true }).click();
        await page.getByRole('row').filter({ hasText: name }).waitFor();
      }
      const result = (name: string) => page.getByRole('row').filter({ hasText: name }).getByTestId('byok-test-result');
      const answer = page.waitForResponse((response) => response.url().endsWith('/test'));
      await page.getByRole('button', { name: 'Test credential simulator good' }).click();
      expect(await (await answer).text()).not.toContain('sk-sim');
      await expect.poll(() => result('simulator good').textContent(), POLL).toBe('ok');
      await page.getByRole('button', { name: 'Test credential simulator bad' }).click();
      await expect.poll(() => result('simulator bad').textContent(), POLL).toBe('The provider refused the credential (HTTP 401)');
      await screenshot(page, 'byok-tested');
    },
  );

  it(
    'signs the operator in with the operator key to the catalog only, where a price edit reaches the members',
    { timeout: 180_000 },
    async () => {
      const MODEL = 'sim/claude-sonnet';
      const admin = (method: string, body?: unknown) =>
        fetch(`${stack.baseUrl}/admin/models/${MODEL}`, {
          method,
          headers: { authorization: `Bearer ${stack.operatorKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const original = (await (await admin('GET')).json()) as Record<string, unknown>;
      const operatorContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const operator = await operatorContext.newPage();
        operator.setDefaultTimeout(60_000);
        await operator.goto(`${origin}/console/`);
        await operator.getByLabel('Management or operator key').fill('not-an-operator-key-at-all-000000');
        await operator.getByRole('button', { name: 'Sign in with a key' }).click();
        await operator.getByRole('alert').filter({ hasText: 'Not a management key' }).waitFor();
        await operator.getByLabel('Management or operator key').fill(stack.operatorKey);
        await operator.getByRole('button', { name: 'Sign in with a key' }).click();
        await settled(operator, 'Models & prices');
        const stored = await operator.evaluate(() =>
          JSON.stringify({ ...window.localStorage, ...window.sessionStorage, cookie: document.cookie }),
        );
        expect(stored).not.toContain(stack.operatorKey);
        // The operator is no member of any workspace: the console refuses the workspace API to their session.
        await expect(operator.evaluate(() => fetch('/console/api/v1/keys').then((response) => response.status))).resolves.toBe(403);
        await expect(operator.getByRole('navigation').getByRole('link').allTextContents()).resolves.toEqual([
          'Models & prices',
          'API reference',
        ]);

        const row = operator.getByTestId('model-row').filter({ has: operator.getByText(MODEL, { exact: true }) });
        await row.getByRole('button', { name: `Edit prices of ${MODEL} at simulator-anthropic` }).click();
        await operator.getByRole('textbox', { name: 'Prompt, per 1M tokens' }).fill('4.25');
        const saved = operator.waitForResponse((response) => response.request().method() === 'PUT');
        await operator.getByRole('button', { name: 'Save' }).click();
        const answer = await saved;
        expect(answer.status(), await answer.text()).toBe(200);
        await expect.poll(() => row.getByTestId('model-prompt-price').textContent(), POLL).toBe('$4.25');
        await screenshot(operator, 'models-operator');
        expect(await axeFindings(operator, 'models (operator)')).toEqual([]);

        // A member's models page shows the new price once inference serves the new catalog version.
        await expect
          .poll(
            async () => {
              await open(page, '/models', 'Models & prices');
              return page
                .getByTestId('model-row')
                .filter({ has: page.getByText(MODEL, { exact: true }) })
                .getByTestId('model-prompt-price')
                .textContent();
            },
            { timeout: 30_000 },
          )
          .toBe('$4.25');
      } finally {
        await operatorContext.close();
        expect((await admin('PUT', original)).status).toBe(200);
      }
    },
  );

  it(
    'signs an admin in with a management key into the same session as SSO: cookie only, CSRF on writes, ended with the key',
    { timeout: 180_000 },
    async () => {
      const adminKey = newManagementKey();
      const member = await fetch(`${stack.baseUrl}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'a standard key' }),
      });
      expect(member.status).toBe(201);
      const standardKey = ((await member.json()) as { key: string }).key;
      // Only from the console's own origin, and only a management key (Playwright's client: the
      // console's routes are outside the OpenAPI document that checks every fetch of this run).
      const client = await browser.newContext();
      try {
        const post = (key: string, from: string) =>
          client.request.post(`${origin}/console/auth/key`, { headers: { origin: from }, data: { key } });
        expect((await post(adminKey, 'https://elsewhere.example')).status()).toBe(403);
        const standard = await post(standardKey, origin);
        expect(standard.status()).toBe(401);
        expect(await standard.text()).not.toContain(standardKey);
      } finally {
        await client.close();
      }

      const { context: admin, page: adminPage } = await signInWithKey(browser, adminKey, 'Overview');
      try {
        const cookie = (await admin.cookies()).find((candidate) => candidate.name === 'gw_console');
        expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/console' });
        const stored = await adminPage.evaluate(() =>
          JSON.stringify({ ...window.localStorage, ...window.sessionStorage, cookie: document.cookie, field: document.body.innerHTML }),
        );
        expect(stored).not.toContain(adminKey);
        expect(cookie!.value).not.toContain(adminKey);
        await go(adminPage, 'API keys');
        await adminPage.getByTestId('key-row').filter({ hasText: 'a standard key' }).waitFor();
        const csrfLess = await adminPage.evaluate(() =>
          fetch('/console/api/v1/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }).then(
            (response) => response.status,
          ),
        );
        expect(csrfLess).toBe(403);

        // Disabling the key it was opened with ends the session, in this browser and any copy of its cookie.
        const copied = (await admin.cookies()).filter((candidate) => candidate.name === 'gw_console');
        const hashOf = createHash('sha256').update(adminKey).digest('hex');
        const disabled = await fetch(`${stack.baseUrl}/keys/${hashOf}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ disabled: true }),
        });
        expect(disabled.status).toBe(200);
        await expect.poll(() => sessionStatusWith(browser, copied), POLL).toBe(401);
        await expect(adminPage.evaluate(() => fetch('/console/api/v1/keys').then((response) => response.status))).resolves.toBe(401);
      } finally {
        await admin.close();
      }
      // The key went to the gateway once and was never written to its logs.
      expect(stackLogs()).not.toContain(adminKey);
    },
  );

  it(
    'signs an operator out everywhere server side: every session and copied cookie of theirs is refused',
    { timeout: 180_000 },
    async () => {
      const first = await signInWithKey(browser, stack.operatorKey, 'Models & prices');
      const second = await signInWithKey(browser, stack.operatorKey, 'Models & prices');
      try {
        const copyOfFirst = (await first.context.cookies()).filter((cookie) => cookie.name === 'gw_console');
        const copyOfSecond = (await second.context.cookies()).filter((cookie) => cookie.name === 'gw_console');
        // A plain sign-out ends that session on the server: its copied cookie is refused, the other session lives.
        await second.page.getByRole('button', { name: /^Account of / }).click();
        await second.page.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
        await second.page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
        await expect(sessionStatusWith(browser, copyOfSecond)).resolves.toBe(401);
        await expect(sessionStatusWith(browser, copyOfFirst)).resolves.toBe(200);
        const third = await signInWithKey(browser, stack.operatorKey, 'Models & prices');
        const copyOfThird = (await third.context.cookies()).filter((cookie) => cookie.name === 'gw_console');
        await third.context.close();
        await first.page.getByRole('button', { name: /^Account of / }).click();
        await first.page.getByRole('menuitem', { name: 'Sign out everywhere' }).click();
        await first.page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
        await expect(sessionStatusWith(browser, copyOfFirst)).resolves.toBe(401);
        await expect(sessionStatusWith(browser, copyOfThird)).resolves.toBe(401);
      } finally {
        await first.context.close();
        await second.context.close();
      }
    },
  );

  /** A standard key of the owner's workspace, made through the keys API. */
  const newStandardKey = async (name: string): Promise<{ key: string; hash: string }> => {
    const created = await fetch(`${stack.baseUrl}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    return { key, hash: createHash('sha256').update(key).digest('hex') };
  };
  const readAsOwner = async (path: string) => fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${ownerKey}` } });

  it(
    "manages a guardrail in the page: created, edited, assigned to a key whose request is then refused with the guardrail's 403, deleted",
    { timeout: 240_000 },
    async () => {
      const NAME = 'console guardrail';
      const guarded = await newStandardKey('guarded key');
      const openai = new OpenAI({ apiKey: guarded.key, baseURL: stack.baseUrl, maxRetries: 0 });
      const status = () =>
        openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }).then(
          () => 200,
          (caught: unknown) => (caught instanceof APIError ? caught.status : String(caught)),
        );
      await expect(status()).resolves.toBe(200);

      await go(page, 'Guardrails');
      await page.getByRole('button', { name: 'Create guardrail' }).click();
      const create = page.getByRole('dialog', { name: 'Create a guardrail' });
      await create.getByRole('textbox', { name: 'Name' }).fill(NAME);
      await create.getByRole('textbox', { name: 'Spend limit (USD)' }).fill('5');
      expect(await axeFindings(page, 'guardrail create dialog')).toEqual([]);
      await create.getByRole('button', { name: 'Create', exact: true }).click();
      const row = page.getByTestId('guardrail-row').filter({ hasText: NAME });
      await expect.poll(() => row.getByTestId('guardrail-limit').textContent(), POLL).toBe('$5.00');
      const listed = (await (await readAsOwner('/guardrails')).json()) as { data: { id: string; name: string }[] };
      const id = listed.data.find((guardrail) => guardrail.name === NAME)!.id;

      await row.getByRole('button', { name: `Edit guardrail ${NAME}` }).click();
      const edit = page.getByRole('dialog', { name: `Edit guardrail ${NAME}` });
      await edit.getByRole('textbox', { name: 'Blocked models' }).fill('sim/gpt-4o-mini');
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => row.getByTestId('guardrail-models').textContent(), POLL).toBe('all; not sim/gpt-4o-mini');
      const edited = (await (await readAsOwner(`/guardrails/${id}`)).json()) as { data: { ignored_models: string[]; limit_usd: number } };
      expect(edited.data).toMatchObject({ ignored_models: ['sim/gpt-4o-mini'], limit_usd: 5 });

      await row.getByRole('button', { name: `Assign guardrail ${NAME}` }).click();
      const assign = page.getByRole('dialog', { name: `Assign guardrail ${NAME}` });
      await assign.getByRole('checkbox', { name: /^guarded key / }).check();
      await screenshot(page, 'guardrails-assign');
      expect(await axeFindings(page, 'guardrail assign dialog')).toEqual([]);
      await assign.getByRole('button', { name: 'Save assignments' }).click();
      await assign.waitFor({ state: 'detached' });
      const assigned = (await (await readAsOwner(`/guardrails/${id}/assignments/keys`)).json()) as { data: { key_hash: string }[] };
      expect(assigned.data.map((assignment) => assignment.key_hash)).toEqual([guarded.hash]);
      await expect.poll(status, POLL).toBe(403);
      const refusal = (await openai.chat.completions
        .create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] })
        .catch((caught: unknown) => caught)) as APIError;
      expect(refusal.status).toBe(403);
      expect(refusal.message).toContain(NAME);
      expect(JSON.stringify(refusal.error)).toContain('guardrail_denied');
      await screenshot(page, 'guardrails-managed');

      await row.getByRole('button', { name: `Delete guardrail ${NAME}` }).click();
      const confirm = page.getByRole('dialog', { name: `Delete guardrail ${NAME}` });
      await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect.poll(() => row.count(), POLL).toBe(0);
      expect((await readAsOwner(`/guardrails/${id}`)).status).toBe(404);
      await expect.poll(status, POLL).toBe(200);
    },
  );

  it(
    "shows a running batch's progress reaching completed without a reload, and downloads results equal to the results API's",
    { timeout: 240_000 },
    async () => {
      const { key } = await newStandardKey('batch key');
      const openai = new OpenAI({ apiKey: key, baseURL: stack.baseUrl, maxRetries: 0 });
      // 3 s a line, four at a time per workspace: about ten seconds running. A space in custom_id
      // makes the gateway run each line itself (the provider's batch API would take them at once).
      const LINES = 12;
      const submit = async (lines: number) => {
        const jsonl = Array.from({ length: lines }, (_, n) =>
          JSON.stringify({
            custom_id: `line ${n}`,
            method: 'POST',
            url: '/v1/chat/completions',
            body: { model: 'sim/gpt-4o-mini-delayed', messages: [{ role: 'user', content: `Say ${n}` }], max_tokens: 16 },
          }),
        ).join('\n');
        const file = await openai.files.create({ file: await toFile(Buffer.from(`${jsonl}\n`), 'console.jsonl'), purpose: 'batch' });
        return openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      };
      const batch = await submit(LINES);

      await go(page, 'Batches');
      await page.evaluate(() => Object.assign(window, { consoleNotReloaded: true }));
      const row = page.getByTestId('batch-row').filter({ hasText: batch.id });
      const download = row.getByRole('button', { name: `Download results of batch ${batch.id}` });
      // Running: no results yet, and the page says why.
      await expect(download.isDisabled()).resolves.toBe(true);
      await expect(row.getByTestId('batch-results-reason').textContent()).resolves.toBe('Ready once the batch has ended.');
      const seen = new Set<string>();
      await expect
        .poll(
          async () => {
            const shown = `${await row.getByTestId('batch-status').textContent()} ${await row.getByTestId('batch-progress').textContent()}`;
            seen.add(shown);
            return shown;
          },
          { timeout: 120_000, interval: 500 },
        )
        .toBe(`completed ${LINES} done, 0 failed of ${LINES}`);
      // The page moved by itself: an earlier state was shown, and the window is the same one.
      expect(
        [...seen].some((shown) => !shown.startsWith('completed')),
        [...seen].join(' | '),
      ).toBe(true);
      await expect(page.evaluate(() => (window as unknown as { consoleNotReloaded?: boolean }).consoleNotReloaded)).resolves.toBe(true);

      const [downloaded] = await Promise.all([page.waitForEvent('download'), download.click()]);
      const fromPage = readFileSync((await downloaded.path())!, 'utf8');
      const fromApi = await (
        await fetch(`${stack.baseUrl}/batches/${batch.id}/results`, { headers: { authorization: `Bearer ${key}` } })
      ).text();
      expect(fromPage.trim().split('\n')).toHaveLength(LINES);
      expect(fromPage).toBe(fromApi);
      await screenshot(page, 'batches-completed');
      expect(await axeFindings(page, 'batches (completed)')).toEqual([]);

      // A running batch is cancelled from the page, asked first (the list is read again: nothing runs, so nothing polls).
      const long = await submit(40);
      await open(page, '/batches', 'Batches');
      const longRow = page.getByTestId('batch-row').filter({ hasText: long.id });
      await longRow.getByRole('button', { name: `Cancel batch ${long.id}` }).click();
      const confirm = page.getByRole('dialog', { name: `Cancel batch ${long.id}` });
      await confirm.waitFor();
      expect(await axeFindings(page, 'batch cancel dialog')).toEqual([]);
      await confirm.getByRole('button', { name: 'Cancel batch', exact: true }).click();
      await expect.poll(() => longRow.getByTestId('batch-status').textContent(), { timeout: 120_000 }).toBe('cancelled');
      expect((await openai.batches.retrieve(long.id)).status).toBe('cancelled');
    },
  );

  it("edits a key's spend limit and rate limit in the page, and the keys API answers the new ones", { timeout: 120_000 }, async () => {
    const { hash } = await newStandardKey('limit key');
    await go(page, 'API keys');
    const row = page.getByTestId('key-row').filter({ hasText: 'limit key' });
    await row.getByRole('button', { name: 'Edit key limit key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit key limit key' });
    await dialog.getByRole('textbox', { name: 'Spend limit (USD)' }).fill('2.5');
    await dialog.getByRole('textbox', { name: 'Requests per minute' }).fill('30');
    await screenshot(page, 'keys-edit');
    expect(await axeFindings(page, 'key edit dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.getByTestId('key-limit').textContent(), POLL).toBe('$2.50');
    const { data } = (await (await readAsOwner(`/keys/${hash}`)).json()) as {
      data: { limit: number; rate_limit: { requests_per_minute: number | null } };
    };
    expect(data.limit).toBe(2.5);
    expect(data.rate_limit.requests_per_minute).toBe(30);
  });

  it(
    'has no serious or critical accessibility findings on any page, at 1280 px, on a phone and in dark mode',
    { timeout: 400_000 },
    async () => {
      const findings: string[] = [];
      const scan = async (target: Page, name: string) => {
        findings.push(...(await axeFindings(target, name)));
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

  it('loads the overview cold (empty cache), compressed', { timeout: 120_000 }, async () => {
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
    // Compressed, the overview with its chart library stays a few hundred KB; its time is a bench goal, not a test.
    expect(bytes).toBeLessThan(450 * 1024);
  });

  it('signs out everywhere: the session cookie no longer works, in this browser or any copy of it', { timeout: 120_000 }, async () => {
    const copied = (await context.cookies()).filter((cookie) => cookie.name === 'gw_console');
    expect(copied).toHaveLength(1);
    await open(page, '/', 'Overview');
    await page.getByRole('button', { name: /^Account of / }).click();
    await page.getByRole('menuitem', { name: 'Sign out everywhere' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await screenshot(page, 'sign-in');
    expect(await axeFindings(page, 'sign-in')).toEqual([]);
    await expect(page.evaluate(() => fetch('/console/api/v1/keys').then((response) => response.status))).resolves.toBe(401);
    // A copy of the old cookie (another tab, a stolen one) is refused too: its key is gone server side.
    const other = await browser.newContext();
    await other.addCookies(copied);
    const answer = await other.request.get(`${origin}/console/auth/session`);
    expect(answer.status()).toBe(401);
    await other.close();
  });
});
