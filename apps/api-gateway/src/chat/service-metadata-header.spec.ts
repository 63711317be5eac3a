import { describe, expect, it } from 'vitest';
import { metadataOptIn } from './service-metadata-header.js';

describe('metadataOptIn', () => {
  it('is off by default and with "disabled"', () => {
    expect(metadataOptIn({})).toEqual({ serviceMetadata: false });
    expect(metadataOptIn({ 'x-service-metadata': 'disabled' })).toEqual({ serviceMetadata: false });
    expect(metadataOptIn({ 'x-openrouter-metadata': 'disabled' })).toEqual({ serviceMetadata: false });
  });

  it('is on with "enabled" on the current, the OpenRouter or the legacy header, in any case', () => {
    expect(metadataOptIn({ 'x-service-metadata': 'Enabled' })).toEqual({ serviceMetadata: true });
    expect(metadataOptIn({ 'x-service-experimental-metadata': 'enabled' })).toEqual({ serviceMetadata: true });
  });

  it("answers under openrouter_metadata when only the SDK's header asked; the spec's headers win", () => {
    expect(metadataOptIn({ 'x-openrouter-metadata': 'enabled' })).toEqual({ serviceMetadata: true, metadataField: 'openrouter_metadata' });
    expect(metadataOptIn({ 'x-openrouter-metadata': 'enabled', 'x-service-metadata': 'enabled' })).toEqual({ serviceMetadata: true });
  });

  it('leaves values it does not know alone, as the open enum of the SDK implies', () => {
    expect(metadataOptIn({ 'x-openrouter-metadata': 'verbose' })).toEqual({ serviceMetadata: false });
    expect(metadataOptIn({ 'x-service-metadata': 'yes', 'x-openrouter-metadata': 'enabled' })).toEqual({
      serviceMetadata: true,
      metadataField: 'openrouter_metadata',
    });
  });
});
