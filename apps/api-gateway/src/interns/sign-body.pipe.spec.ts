import type { ArgumentMetadata } from '@nestjs/common';
import { DaemonSignDto } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { DtoPipe } from '../input/dto-pipes.js';
import { SignBody } from './sign-body.pipe.js';

const metadata: ArgumentMetadata = { type: 'body', metatype: DaemonSignDto };
/** What the route validated with before the fast path: the answer must be the same for every body. */
const reference = new DtoPipe({ unknown: 'reject', reason: 'invalid_body' });
const digest = 'ab'.repeat(32);

async function outcome(pipe: { transform(value: unknown, metadata: ArgumentMetadata): unknown }, body: unknown) {
  try {
    const value = (await pipe.transform(body, metadata)) as DaemonSignDto;
    return { ok: { bodySha256: value.bodySha256, route: value.route ? { ...value.route } : undefined } };
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const { status, message, metadata: meta } = error as GatewayError;
    return { error: { status, message, metadata: meta } };
  }
}

describe('SignBody', () => {
  const bodies: Array<[string, unknown]> = [
    ['the digest alone', { bodySha256: digest }],
    ['a digest and a route', { bodySha256: digest, route: { method: 'POST', path: '/run' } }],
    ['upper-case hex', { bodySha256: digest.toUpperCase() }],
    ['a short digest', { bodySha256: 'abc' }],
    ['a digest that is not a string', { bodySha256: 42 }],
    ['no digest', {}],
    ['an unknown field', { bodySha256: digest, extra: 1 }],
    ['an inherited name as a key', JSON.parse(`{"bodySha256":"${digest}","__proto__":{"x":1}}`) as unknown],
    ['a bad route', { bodySha256: digest, route: { method: 'post', path: 'run' } }],
    ['an array', [digest]],
    ['a string', digest],
    ['nothing', undefined],
    ['null', null],
  ];

  it.each(bodies)('answers %s exactly as the full DaemonSignDto validation does', async (_name, body) => {
    expect(await outcome(SignBody, body)).toEqual(await outcome(reference, body));
  });

  it('refuses with reason invalid_body (spec §7.2)', async () => {
    expect(await outcome(SignBody, { bodySha256: 'abc' })).toMatchObject({ error: { status: 400, metadata: { reason: 'invalid_body' } } });
  });

  it('takes the digest-only body without class-validator, and hands it on as received', async () => {
    const body = { bodySha256: digest };
    expect(await SignBody.transform(body, metadata)).toBe(body);
  });
});
