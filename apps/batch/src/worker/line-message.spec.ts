import 'reflect-metadata';
import { SUBJECTS, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lineMessage } from './line-message.js';

const principal = (): Principal =>
  ({
    workspaceId: randomUUID(),
    keyHash: 'e'.repeat(64),
    keyKind: 'standard',
    userId: randomUUID(),
    hasPersonalIdentity: false,
    batchId: `batch_${'a'.repeat(32)}`,
  }) as Principal;
const body = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

/* Inference takes inference.chat.create unvalidated: batch must refuse what inference's pipe refused. */
describe('a batch line message', () => {
  it('passes a well-formed chat message, unknown top-level fields stripped', async () => {
    const message = (await lineMessage(SUBJECTS.inference.chatCreate, principal(), body)) as Record<string, unknown>;
    expect(message).toMatchObject({ body, principal: { keyKind: 'standard' } });
  });

  it.each([SUBJECTS.inference.responsesCreate, SUBJECTS.inference.messagesCreate])('checks %s as chat create', async (subject) => {
    const failure = await lineMessage(subject, { ...principal(), workspaceId: 'not-a-uuid' }, body).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, message: expect.stringMatching(/principal\.workspaceId/) });
  });

  it.each([
    ['a principal without a workspace', { ...principal(), workspaceId: 'not-a-uuid' }, /principal\.workspaceId/],
    ['a malformed batch id', { ...principal(), batchId: 'batch_x' }, /principal\.batchId/],
    ['an unknown key kind', { ...principal(), keyKind: 'root' }, /principal\.keyKind/],
  ])('refuses a chat message with %s (400)', async (_name, who, problem) => {
    const failure = await lineMessage(SUBJECTS.inference.chatCreate, who as Principal, body).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ status: 400, message: expect.stringMatching(problem) });
  });

  it('leaves the subjects inference validates itself as they are', async () => {
    const who = { ...principal(), workspaceId: 'not-a-uuid' };
    await expect(lineMessage(SUBJECTS.inference.embeddingsCreate, who, body)).resolves.toEqual({ principal: who, body });
  });
});
