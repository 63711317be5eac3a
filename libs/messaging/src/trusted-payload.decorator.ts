import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The message payload as it arrived, NOT validated by the service's PayloadValidationPipe
 * (which leaves custom parameter decorators alone, as Nest's ValidationPipe does).
 *
 * Only for hot subjects whose sole caller is the gateway (`REQUEST_ROUTES` callers =
 * `api-gateway`, enforced by each service's NATS permissions, ADR 0035) and whose every field
 * the gateway built or validated at the edge: the principal it authenticated and a body it
 * checked with the same contract. Validating again was a fifth of intern-signing's CPU per
 * signature (ADR 0054). The handler's spec must assert the caller list, so a change to who may
 * call the subject fails a test instead of silently widening the trust.
 */
export const TrustedPayload = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToRpc().getData());
