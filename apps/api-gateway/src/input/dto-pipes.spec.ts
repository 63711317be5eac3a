import { ChatCompletionRequestDto, CreateKeyDto } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { DtoPipe, PassThroughBody, StrictBody, StrictBodyOrEmpty } from './dto-pipes.js';

const body = (metatype: unknown) => ({ type: 'body' as const, metatype: metatype as never, data: undefined });

describe('DtoPipe', () => {
  it('pass-through forwards the received object itself, unknown fields included, after validating it', async () => {
    const received = { model: 'm', messages: [{ role: 'user', content: 'hi' }], provider_specific: { x: 1 } };
    await expect(PassThroughBody.transform(received, body(ChatCompletionRequestDto))).resolves.toBe(received);
    await expect(
      PassThroughBody.transform({ model: 'm', messages: [], temperature: 9 }, body(ChatCompletionRequestDto)),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('strict bodies answer the validated instance and refuse unknown fields', async () => {
    await expect(StrictBody.transform({ name: 'k' }, body(CreateKeyDto))).resolves.toBeInstanceOf(CreateKeyDto);
    await expect(StrictBody.transform({ name: 'k', nope: 1 }, body(CreateKeyDto))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('nope'),
    });
  });

  it('an absent body is a 400, or {} where every field is optional', async () => {
    await expect(StrictBody.transform(undefined, body(CreateKeyDto))).rejects.toMatchObject({
      status: 400,
      message: 'Expected a JSON object',
    });
    await expect(StrictBodyOrEmpty.transform(undefined, body(CreateKeyDto))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('name'),
    });
  });

  it('a route reason replaces the 400 metadata (intern routes)', async () => {
    const pipe = new DtoPipe({ unknown: 'reject', reason: 'invalid_body' });
    const error = await pipe.transform({ nope: 1 }, body(CreateKeyDto)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).metadata).toEqual({ reason: 'invalid_body', retryable: false });
  });

  it('a parameter without a DTO class (a type-only import) is a programming error, never an unvalidated body', async () => {
    for (const metatype of [undefined, Object]) {
      await expect(StrictBody.transform({ any: 'thing' }, body(metatype))).rejects.toThrow(/without a DTO class/);
    }
  });
});
