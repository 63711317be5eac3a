import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';

/**
 * Issue 16: log lines are JSON with the service name, and no secret reaches any of them. This
 * test makes secrets travel (a new key, a BYOK credential, chats with them, refusals of wrong
 * keys) and then reads every log line of every process of the e2e stack (level info, as in
 * production) for each secret it knows, the seeded keys included.
 */
/** Log files of the gateway and the four services (`inference.log`, `api-gateway-2.log`, ...). */
const SERVICE_LOG = /^(api-gateway|management|inference|batch|intern-signing)(-\d+)?\.log$/;

describe('logs', () => {
  it('are JSON lines naming their service and hold none of the secrets the run used', async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'log-secrets test key' } });
    expect(created.status).toBe(201);
    const newKey = (created.body as { key: string }).key;
    const byokSecret = `sk-ant-log-secret-${Date.now()}-abcdefghij`;
    const byok = await call('/byok', {
      key: stack.managementKey,
      body: { provider: 'anthropic', key: byokSecret, name: 'log-secrets byok' },
    });
    expect(byok.status).toBe(201);
    expect(
      (await call('/chat/completions', { key: newKey, body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call('/chat/completions', {
          key: `${newKey}x`,
          body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        })
      ).status,
    ).toBe(401);
    expect(
      (await call('/chat/completions', { key: newKey, body: { model: 'sim/claude-sonnet', messages: [{ role: 'user', content: 'hi' }] } }))
        .status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500)); // let the processes write their lines

    // The services' NATS seeds are secrets too, and the gateway's principal signing key.
    const secrets = [
      stack.apiKey,
      stack.managementKey,
      newKey,
      byokSecret,
      ...Object.values(stack.natsSeeds),
      stack.principalKeys.signingKey,
    ];
    let lines = 0;
    for (const file of readdirSync(stack.logDir).filter((name) => name.endsWith('.log'))) {
      for (const line of readFileSync(join(stack.logDir, file), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        lines++;
        for (const secret of secrets) expect(line.includes(secret), `${file} holds a secret: ${line.slice(0, 200)}`).toBe(false);
        // The stand-ins in tools/ (OIDC provider, simulators) write plain text; the services write JSON.
        if (!SERVICE_LOG.test(file)) continue;
        const parsed = JSON.parse(line) as { name?: string; level?: number };
        expect(typeof parsed.name, `${file}: ${line.slice(0, 200)}`).toBe('string');
      }
    }
    expect(lines).toBeGreaterThan(0);
  });
});
