import { describe, expect, it } from 'vitest';
import { AddCreditsDto, amountToDecimalString, CreateKeyDto, UpdateKeyDto, validateDto } from '@gw/contracts';

describe('key write bodies', () => {
  it('accepts the body the OpenRouter SDK sends for apiKeys.create', async () => {
    const body = { name: 'ci', limit: 1.5, limit_reset: 'weekly', include_byok_in_limit: true, expires_at: '2030-01-02T03:04:05.678Z' };
    await expect(validateDto(CreateKeyDto, body, 'reject')).resolves.toMatchObject(body);
    await expect(
      validateDto(CreateKeyDto, { name: 'x', limit: null, limit_reset: null, expires_at: null }, 'reject'),
    ).resolves.toBeDefined();
    // JavaScript prints these with an exponent; they are still plain amounts.
    await expect(validateDto(CreateKeyDto, { name: 'x', limit: 1e-9 }, 'reject')).resolves.toMatchObject({ limit: 1e-9 });
    await expect(validateDto(CreateKeyDto, { name: 'x', limit: 1e-12 }, 'reject')).resolves.toBeDefined();
  });

  it.each([
    [{ name: 'x', expires_at: '2030-01-02T03:04:05+02:00' }, /UTC/],
    [{ name: 'x', expires_at: '2030-01-02' }, /UTC/],
    [{ name: 'x', expires_at: '2030-13-02T03:04:05Z' }, /UTC/],
    [{ name: 'x', limit_reset: 'yearly' }, /limit_reset/],
    [{ name: 'x', limit: -1 }, /limit/],
    [{ name: 'x', limit: 0.1 + 0.2 }, /limit/],
    [{ name: 'x', limit: 1e-13 }, /limit/],
    [{ name: 'x', limit: '5' }, /limit/],
    [{ name: '' }, /name/],
    [{ limit: 1 }, /name/],
    [{ name: 'x', include_byok_in_limit: null }, /include_byok_in_limit/],
    [{ name: 'x', external: { user: 'u' } }, /external/],
  ])('refuses %j', async (body, message) => {
    await expect(validateDto(CreateKeyDto, body, 'reject')).rejects.toMatchObject({ status: 400, message: expect.stringMatching(message) });
  });

  it('lets PATCH clear nullable fields but not name or disabled', async () => {
    await expect(validateDto(UpdateKeyDto, { limit: null, limit_reset: null, expires_at: null }, 'reject')).resolves.toBeDefined();
    await expect(validateDto(UpdateKeyDto, {}, 'reject')).resolves.toBeDefined();
    await expect(validateDto(UpdateKeyDto, { name: null }, 'reject')).rejects.toMatchObject({ status: 400 });
    await expect(validateDto(UpdateKeyDto, { disabled: 'yes' }, 'reject')).rejects.toMatchObject({ status: 400 });
  });

  it('wants a positive credit amount', async () => {
    await expect(validateDto(AddCreditsDto, { amount: 0.000001 }, 'reject')).resolves.toBeDefined();
    for (const amount of [0, -5, '10', 2e9]) {
      await expect(validateDto(AddCreditsDto, { amount }, 'reject')).rejects.toMatchObject({ status: 400 });
    }
  });

  it('turns JSON numbers into exact decimal strings', () => {
    expect(amountToDecimalString(0.1)).toBe('0.1');
    expect(amountToDecimalString(100)).toBe('100');
    expect(amountToDecimalString(1e-7)).toBe('0.0000001');
    expect(amountToDecimalString(123456.000000000001)).toBe('123456');
    expect(amountToDecimalString(0.000000000001)).toBe('0.000000000001');
  });
});
