import { describe, expect, it } from 'vitest';
import { wantsServiceMetadata } from './service-metadata-header.js';

describe('wantsServiceMetadata', () => {
  it('is off by default and with "disabled"', () => {
    expect(wantsServiceMetadata({})).toBe(false);
    expect(wantsServiceMetadata({ 'x-service-metadata': 'disabled' })).toBe(false);
  });

  it('is on with "enabled" on the current or the legacy header, in any case', () => {
    expect(wantsServiceMetadata({ 'x-service-metadata': 'Enabled' })).toBe(true);
    expect(wantsServiceMetadata({ 'x-service-experimental-metadata': 'enabled' })).toBe(true);
  });

  it('refuses other values with a 400', () => {
    expect(() => wantsServiceMetadata({ 'x-service-metadata': 'yes' })).toThrow(expect.objectContaining({ status: 400 }));
  });
});
