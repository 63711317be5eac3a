import { BadRequestException, NotFoundException } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { toGatewayError } from './http-error.mapper.js';

describe('toGatewayError', () => {
  it('keeps gateway errors as they are', () => {
    const error = new GatewayError(402, 'no credits');
    expect(toGatewayError(error)).toBe(error);
  });

  it("answers a service's refusal of the principal this gateway signed as the gateway's own 500", () => {
    const refusal = GatewayError.forbidden('refused', { reason: 'principal_expired' });
    expect(toGatewayError(refusal)).toMatchObject({ status: 500, message: 'Internal server error' });
    const other = GatewayError.forbidden('a member may read, not change', { reason: 'member_read_only' });
    expect(toGatewayError(other)).toBe(other);
  });

  it('maps Nest HTTP exceptions with their status', () => {
    expect(toGatewayError(new NotFoundException('Cannot GET /v1/nope')).status).toBe(404);
    const bad = toGatewayError(new BadRequestException(['a must be a string', 'b must be a number']));
    expect(bad.status).toBe(400);
    expect(bad.message).toBe('a must be a string; b must be a number');
  });

  it('maps Fastify body errors to client statuses with a fixed message', () => {
    const tooLarge = toGatewayError({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'internal detail' });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.errorType).toBe('payload_too_large');
    expect(tooLarge.message).toBe('Request body is too large');
    expect(toGatewayError({ statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }).status).toBe(415);
  });

  it('turns anything else into an opaque 500', () => {
    const error = toGatewayError(new Error('connection string postgres://secret'));
    expect(error.status).toBe(500);
    expect(error.message).toBe('Internal server error');
  });
});
