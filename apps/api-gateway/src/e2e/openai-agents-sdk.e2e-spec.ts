import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool, webSearchTool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/**
 * The OpenAI Agents SDK (`@openai/agents`) with its defaults (the Responses API) against the
 * gateway, set up as docs/clients/openai-agents-sdk.md says: its own `openai` client on the
 * gateway's /v1, tracing off (traces would go to OpenAI's platform with the key).
 */
beforeAll(() => {
  setDefaultOpenAIClient(new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 }));
  setTracingDisabled(true);
});

const lookup = tool({
  name: 'lookup_customer',
  description: 'Find a customer by id',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
    additionalProperties: false,
  },
  strict: true,
  execute: async (input) => `customer ${(input as { id: string }).id} is Ada Lovelace of London`,
});

describe('the OpenAI Agents SDK', () => {
  it.each(['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet'])(
    '%s: an agent calls its function tool and answers with the result',
    async (model) => {
      const agent = new Agent({ name: 'Support', instructions: 'Answer briefly.', model, tools: [lookup] });
      const result = await run(agent, 'Who is customer c-7? call lookup_customer with {"id": "c-7"}');
      expect(result.finalOutput).toContain('Ada Lovelace of London');
    },
  );

  it('its hosted web search tool runs as the gateway web search', async () => {
    const agent = new Agent({ name: 'Researcher', model: 'sim/gpt-4o-mini', tools: [webSearchTool()] });
    const result = await run(agent, 'Search the web for the capital of Atlantis.');
    expect(result.finalOutput).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
  });
});
