import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationDoc } from './configuration-doc.ts';

const root = join(import.meta.dirname, '../../..');

describe('docs/configuration.md', () => {
  it('is what the env classes say (run `npm run docs` after changing one)', () => {
    expect(readFileSync(join(root, 'docs/configuration.md'), 'utf8')).toBe(configurationDoc(root));
  });

  it('lists every variable of every env class, with a meaning', () => {
    const doc = configurationDoc(root);
    for (const variable of [
      'NATS_URL',
      'DATABASE_URL',
      'REDIS_URL',
      'BODY_LIMIT_BYTES',
      'BYOK_KEKS',
      'SPEND_LEASE_CALLS',
      'DAEMON_SIGNING_KEYS',
    ])
      expect(doc).toContain(`\`${variable}\``);
    expect(doc).not.toMatch(/\| {2}\|\n/);
  });
});
