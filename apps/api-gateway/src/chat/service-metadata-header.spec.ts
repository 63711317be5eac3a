import { describe, expect, it } from 'vitest';
import { wantsServiceMetadata } from './service-metadata-header.js';

describe('wantsServiceMetadata', () => {
  it('is off by default and with "disabled"', () => {
    expect(wantsServiceMetadata({})).toBe(false);
    expect(wantsServiceMetadata({ 'x-service-metadata': 'disabled' })).toBe(false);
    expect(wantsServiceMetadata({ 'x-openrouter-metadata': 'disabled' })).toBe(false);
  });

  it('is on with "enabled" on the current, the OpenRouter or the legacy header, in any case', () => {
    expect(wantsServiceMetadata({ 'x-service-metadata': 'Enabled' })).toBe(true);
    expect(wantsServiceMetadata({ 'x-openrouter-metadata': 'enabled' })).toBe(true);
    expect(wantsServiceMetadata({ 'x-service-experimental-metadata': 'enabled' })).toBe(true);
  });

  it('leaves values it does not know alone, as the open enum of the SDK implies', () => {
    expect(wantsServiceMetadata({ 'x-openrouter-metadata': 'verbose' })).toBe(false);
    expect(wantsServiceMetadata({ 'x-service-metadata': 'yes', 'x-openrouter-metadata': 'enabled' })).toBe(true);
  });
});
