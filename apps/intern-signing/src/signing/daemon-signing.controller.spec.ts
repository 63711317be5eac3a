import { isTrustedSubject, REQUEST_ROUTES, SUBJECTS } from '@gw/contracts';
import { describe, expect, it } from 'vitest';

/*
 * DaemonSigningController.sign takes its payload unvalidated (trusted in the catalog). That
 * is sound only while the gateway, which validates the body at the edge and builds the
 * principal, is the subject's one caller: widening the caller list must fail here first.
 */
describe('the trusted sign subject', () => {
  it('may be called by the gateway only, with a principal it built', () => {
    const route = REQUEST_ROUTES.find((candidate) => candidate.subject === SUBJECTS.internSigning.daemonSign);
    expect(route).toMatchObject({ server: 'intern-signing', callers: ['api-gateway'], principal: true });
  });

  it('is declared trusted in the catalog', () => {
    expect(isTrustedSubject(SUBJECTS.internSigning.daemonSign)).toBe(true);
  });
});
