import { describe, expect, it } from 'vitest';
import { validateDto } from '../validation/validate-dto.js';
import { ChatCreateRequest } from './chat.messages.js';
import { KeysListRequest } from './keys.messages.js';

/* A message that acts for a workspace must name whose principal it carries: absent is refused, not skipped. */
describe('principal-carrying messages', () => {
  it('refuse a message without its principal', async () => {
    await expect(
      validateDto(ChatCreateRequest, { body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } }, 'strip'),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('principal') });
    await expect(validateDto(KeysListRequest, {}, 'strip')).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('principal'),
    });
  });
});
