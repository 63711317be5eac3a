import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import type { PrincipalVerifier } from './principal-verifier.js';

/** Nest's dispatch: every message handler's request is checked by `PrincipalVerifier` first (events act for no tenant). */
export class BusPrincipalGuard implements CanActivate {
  constructor(private readonly verifier: PrincipalVerifier) {}

  canActivate(context: ExecutionContext): boolean {
    const rpc = context.switchToRpc();
    const nats = rpc.getContext<NatsContext>();
    this.verifier.verify(nats.getSubject(), nats.getHeaders(), rpc.getData());
    return true;
  }
}
