import { Injectable } from '@nestjs/common';
import type { ProviderFormat } from '../catalog/catalog.schema.js';
import { AnthropicAdapter } from './anthropic/anthropic.adapter.js';
import { OpenAiAdapter } from './openai/openai.adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';

/** The adapter for each wire format of the catalog (`providers[].format`). */
@Injectable()
export class AdapterRegistry {
  private readonly adapters: Record<ProviderFormat, ProviderAdapter>;

  constructor(openAi: OpenAiAdapter, anthropic: AnthropicAdapter) {
    this.adapters = { openai: openAi, anthropic };
  }

  for(format: ProviderFormat): ProviderAdapter {
    return this.adapters[format];
  }
}
