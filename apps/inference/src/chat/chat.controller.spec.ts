import { REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { describe, expect, it } from 'vitest';

/*
 * ChatController.create takes its payload unvalidated (TrustedPayload, ADR 0056). That is sound
 * only while its callers are the gateway (which validates the body at the edge and builds the
 * principal) and batch (which validates each line's message with ChatCreateRequest, see
 * apps/batch/src/worker/line-message.ts): another caller must fail here first.
 */
describe('the trusted chat-create subject', () => {
  it('may be called by the gateway and batch only, with a principal', () => {
    const route = REQUEST_ROUTES.find((candidate) => candidate.subject === SUBJECTS.inference.chatCreate);
    expect(route).toMatchObject({ server: 'inference', callers: ['api-gateway', 'batch'], principal: true });
  });
});
