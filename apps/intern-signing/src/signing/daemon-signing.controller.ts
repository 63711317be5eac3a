import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type DaemonSignRequest, type DaemonJwksView, type DaemonSignatureHeadersView, DaemonJwks, DaemonSign } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { SignableInterns } from '../interns/signable-interns.js';
import { DaemonSigner } from './daemon-signer.js';
import { SigningKeyRing } from './signing-key-ring.js';
import { InternTurns } from './intern-turns.js';
import { initSignatureMetrics, recordSignature, recordSignatureFailure } from './signing-metrics.js';

/** Spec §4.4: signs a body digest for a visible intern, naming the caller's verified OAuth subject. */
@Controller()
export class DaemonSigningController {
  constructor(
    private readonly interns: SignableInterns,
    private readonly signer: DaemonSigner,
    private readonly keys: SigningKeyRing,
    private readonly turns: InternTurns,
  ) {
    initSignatureMetrics();
  }

  /**
   * The gateway alone may send this (NATS permissions) and it validated the digest, route and
   * intern id at the edge and built the principal itself: the catalog declares it trusted, as
   * validating again was a large share of this service's CPU per signature.
   */
  @MessagePattern(DaemonSign.subject)
  async sign(@Payload() request: DaemonSignRequest): Promise<DaemonSignatureHeadersView> {
    try {
      const headers = await this.signFor(request);
      recordSignature();
      return headers;
    } catch (error) {
      recordSignatureFailure(error);
      throw error;
    }
  }

  private async signFor(request: DaemonSignRequest): Promise<DaemonSignatureHeadersView> {
    // The user a daemon sees is the subject management linked after an OIDC login, carried
    // in the principal the gateway authenticated: never anything the request says.
    const user = request.principal.identitySubject;
    if (!request.principal.hasPersonalIdentity || !user) {
      throw new GatewayError(403, 'Signing needs a personal identity: link one with POST /v1/identity/oidc/start', {
        metadata: { reason: 'personal_identity_required', retryable: false },
      });
    }
    const intern = await this.interns.findVisible(request.principal, request.internId);
    // Counted per intern, whoever asks: a turn of the intern is what is limited (spec §7.2 429).
    const turn = await this.turns.consume(intern.id);
    if (!turn.allowed) {
      throw new GatewayError(429, `Too many turns for this intern: at most ${turn.limit} per window`, {
        metadata: { reason: 'rate_limited', retryable: true, retry_after: turn.retryAfterSeconds },
      });
    }
    return this.signer.sign({ internId: intern.id, user, bodySha256: request.bodySha256, route: request.route });
  }

  @MessagePattern(DaemonJwks.subject)
  jwks(): DaemonJwksView {
    return this.keys.jwks() as DaemonJwksView;
  }
}
