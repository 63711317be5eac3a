import { describe, expect, it } from 'vitest';
import { maskSecret } from './secret-label.js';

describe('maskSecret', () => {
  it('shows the first 3 and last 4 characters of a provider key', () => {
    expect(maskSecret('sk-proj-abcdefghijklmnopqrstuvwxyzAbCd')).toBe('sk-...AbCd');
    expect(maskSecret('sk-ant-api03-0123456789abcdefWXYZ')).toBe('sk-...WXYZ');
  });

  it('gives away less of a short secret, and nothing of a very short one', () => {
    expect(maskSecret('0123456789abc')).toBe('...bc');
    expect(maskSecret('short')).toBe('...');
  });

  it('never contains more than 7 characters of the secret', () => {
    for (let length = 1; length <= 64; length++) {
      const secret = 'x'.repeat(length);
      expect(maskSecret(secret).replace('...', '').length).toBeLessThanOrEqual(Math.min(7, Math.floor(length / 2)));
    }
  });

  it('ignores surrounding whitespace and counts characters, not UTF-16 units', () => {
    expect(maskSecret('  sk-proj-abcdefghijklmnopqrstuvwxyzAbCd\n')).toBe('sk-...AbCd');
    expect(maskSecret('🔑🔑🔑-0123456789abcdefgh-✓✓✓✓')).toBe('🔑🔑🔑...✓✓✓✓');
  });
});
