import { describe, expect, it } from 'vitest';
import { OperatorKeys, parseOperatorKeys } from './operator-keys.js';

describe('OperatorKeys', () => {
  const keys = new OperatorKeys('platform:gwop-aaaaaaaaaaaaaaaaaaaaaaaa, alice:gwop-bbbbbbbbbbbbbbbbbbbbbbbb');

  it('names the operator whose key is presented, and nobody for any other key', () => {
    expect(keys.nameOf('gwop-aaaaaaaaaaaaaaaaaaaaaaaa')).toBe('platform');
    expect(keys.nameOf('gwop-bbbbbbbbbbbbbbbbbbbbbbbb')).toBe('alice');
    expect(keys.nameOf('gwop-aaaaaaaaaaaaaaaaaaaaaaa')).toBeUndefined();
    expect(new OperatorKeys('').nameOf('')).toBeUndefined();
  });

  it('refuses an entry that is not name:secret with a long enough secret', () => {
    expect(() => parseOperatorKeys('platform:short')).toThrow(/entry 1/);
    expect(() => parseOperatorKeys('gwop-aaaaaaaaaaaaaaaaaaaaaaaa')).toThrow(/name:secret/);
  });
});
