import { describe, expect, it } from 'vitest';
import { GatewayError } from '@gw/errors';
import { ChatCompletionRequestDto } from '../index.js';
import { validateDto } from './validate-dto.js';

const toolCall = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
const chat = (extra: object) => ({
  model: 'sim/gpt-4o-mini',
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: [{ ...toolCall, ...extra }] },
  ],
});

describe('validateDto', () => {
  it('refuses a nested key named constructor with a 400 naming it (class-transformer threw a TypeError: a 500)', async () => {
    const refused = await validateDto(ChatCompletionRequestDto, JSON.parse(JSON.stringify(chat({ constructor: 1 }))), 'keep').catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).message).toBe('messages[1].tool_calls[0].constructor: property constructor should not exist');
  });

  it('still passes a body kept whole', async () => {
    await expect(validateDto(ChatCompletionRequestDto, chat({}), 'keep')).resolves.toBeInstanceOf(ChatCompletionRequestDto);
  });

  it('refuses, with a 400 naming it, a JSON schema with a property called constructor (class-transformer cannot take it)', async () => {
    const schema = { type: 'object', properties: { constructor: { type: 'string' } } };
    const body = { ...chat({}), response_format: { type: 'json_schema', json_schema: { name: 's', schema } } };
    const refused = await validateDto(ChatCompletionRequestDto, JSON.parse(JSON.stringify(body)), 'keep').catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 400,
      message: 'response_format.json_schema.schema.properties.constructor: property constructor should not exist',
    });
  });
});
