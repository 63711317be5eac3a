import { REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { describe, expect, it } from 'vitest';

/*
 * The stream subjects of chat completions, the Responses API and Anthropic Messages take their
 * payload unvalidated (trusted in the catalog). That is sound only while their one caller is
 * the gateway, which validates the body at the edge, builds the principal and mints the stream
 * id: another caller must fail here first (and validate with ChatStreamRequest, as batch does
 * for the create subjects).
 */
describe('the trusted stream subjects', () => {
  it.each([SUBJECTS.inference.chatStream, SUBJECTS.inference.responsesStream, SUBJECTS.inference.messagesStream])(
    '%s may be called by the gateway only, with a principal',
    (subject) => {
      const route = REQUEST_ROUTES.find((candidate) => candidate.subject === subject);
      expect(route).toMatchObject({ server: 'inference', callers: ['api-gateway'], principal: true });
    },
  );
});
