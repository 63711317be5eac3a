import { rpcMessage } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { ServedSubject, servedSubjectOf } from './served-subject.decorator.js';

class Payload {}
const Validated = rpcMessage<Payload, unknown>('spec.validated', Payload);
const Trusted = rpcMessage<Payload, unknown>('spec.trusted', Payload);

class Handlers {
  @ServedSubject(Validated)
  validated(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  @ServedSubject(Trusted, { trusted: true })
  trusted(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  @ServedSubject('spec.bare')
  bare(): Promise<unknown> {
    return Promise.resolve(undefined);
  }

  plain(): Promise<unknown> {
    return Promise.resolve(undefined);
  }
}

describe('ServedSubject (ADR 0079)', () => {
  it('marks a method with its subject; validated unless trusted; a bare subject is trusted', () => {
    expect(servedSubjectOf(Handlers.prototype.validated)).toEqual({ subject: 'spec.validated', trusted: false });
    expect(servedSubjectOf(Handlers.prototype.trusted)).toEqual({ subject: 'spec.trusted', trusted: true });
    expect(servedSubjectOf(Handlers.prototype.bare)).toEqual({ subject: 'spec.bare', trusted: true });
    expect(servedSubjectOf(Handlers.prototype.plain)).toBeUndefined();
    expect(servedSubjectOf(undefined)).toBeUndefined();
  });
});
