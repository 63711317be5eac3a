import { REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { servedSubjectOf } from '@gw/messaging';
import { describe, expect, it } from 'vitest';
import { EmbeddingsController } from '../embeddings/embeddings.controller.js';
import { MessagesController } from '../messages/messages.controller.js';
import { ResponsesController } from '../responses/responses.controller.js';
import { ChatController } from './chat.controller.js';

/*
 * The non-streamed create subjects of chat completions, the Responses API and Anthropic
 * Messages take their payload unvalidated (trusted served subjects, ADR 0056, 0079). That is sound only while
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

/* The hot create subjects are served from their own subscriptions, not Nest's dispatch (ADR 0079). */
describe('the served create subjects', () => {
  it('chat, Responses and Messages are served trusted; embeddings validated with its contract', () => {
    expect(servedSubjectOf(ChatController.prototype.create)).toEqual({ subject: SUBJECTS.inference.chatCreate, trusted: true });
    expect(servedSubjectOf(ResponsesController.prototype.create)).toEqual({ subject: SUBJECTS.inference.responsesCreate, trusted: true });
    expect(servedSubjectOf(MessagesController.prototype.create)).toEqual({ subject: SUBJECTS.inference.messagesCreate, trusted: true });
    expect(servedSubjectOf(EmbeddingsController.prototype.create)).toEqual({
      subject: SUBJECTS.inference.embeddingsCreate,
      trusted: false,
    });
  });
});
