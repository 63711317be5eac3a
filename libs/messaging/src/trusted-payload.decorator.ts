import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The message payload as it arrived, NOT validated by the service's PayloadValidationPipe
 * (which leaves custom parameter decorators alone, as Nest's ValidationPipe does).
 *
 * Only for hot subjects whose every caller (`REQUEST_ROUTES` callers, enforced by each service's
 * NATS permissions, ADR 0035) built or validated every field with the same contract before
 * sending: the gateway at the edge (the principal it authenticated, a body it checked), and
 * for `inference.{chat,responses,messages}.create` the batch service, which validates each line's message with the
 * subject's own class (ADR 0056). Validating again was a fifth of intern-signing's CPU per
 * signature (ADR 0054). The handler's spec must assert the caller list, so a change to who may
 * call the subject fails a test instead of silently widening the trust.
 */
export const TrustedPayload = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToRpc().getData());
