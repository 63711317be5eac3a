import { isTrustedSubject, REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { describe, expect, it } from 'vitest';

/*
 * The non-streamed create subjects of chat completions, the Responses API and Anthropic
 * Messages take their payload unvalidated (trusted in the catalog). That is sound only while
 * their callers are the gateway (which validates the body at the edge and builds the principal)
 * and batch (which validates each line's message with ChatCreateRequest, see
 * apps/batch/src/worker/line-message.ts): another caller must fail here first.
 */
describe('the trusted create subjects', () => {
  it.each([SUBJECTS.inference.chatCreate, SUBJECTS.inference.responsesCreate, SUBJECTS.inference.messagesCreate])(
    '%s may be called by the gateway and batch only, with a principal',
    (subject) => {
      const route = REQUEST_ROUTES.find((candidate) => candidate.subject === subject);
      expect(route).toMatchObject({ server: 'inference', callers: ['api-gateway', 'batch'], principal: true });
    },
  );
});

describe('the create subjects as the catalog declares them', () => {
  it('chat, Responses and Messages are trusted; embeddings validated with its contract', () => {
    expect(isTrustedSubject(SUBJECTS.inference.chatCreate)).toBe(true);
    expect(isTrustedSubject(SUBJECTS.inference.responsesCreate)).toBe(true);
    expect(isTrustedSubject(SUBJECTS.inference.messagesCreate)).toBe(true);
    expect(isTrustedSubject(SUBJECTS.inference.embeddingsCreate)).toBe(false);
  });
});
