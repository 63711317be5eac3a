import { REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { servedSubjectOf } from '@gw/messaging';
import { describe, expect, it } from 'vitest';
import { DaemonSigningController } from './daemon-signing.controller.js';

/*
 * DaemonSigningController.sign takes its payload unvalidated (a trusted served subject, ADR 0054, 0079). That
 * is sound only while the gateway, which validates the body at the edge and builds the
 * principal, is the subject's one caller: widening the caller list must fail here first.
 */
describe('the trusted sign subject', () => {
  it('may be called by the gateway only, with a principal it built', () => {
    const route = REQUEST_ROUTES.find((candidate) => candidate.subject === SUBJECTS.internSigning.daemonSign);
    expect(route).toMatchObject({ server: 'intern-signing', callers: ['api-gateway'], principal: true });
  });

  it('is served from its own subscription, its payload trusted', () => {
    expect(servedSubjectOf(DaemonSigningController.prototype.sign)).toEqual({ subject: SUBJECTS.internSigning.daemonSign, trusted: true });
  });
});
