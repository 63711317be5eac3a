import { DaemonSign, type DaemonSignRequest } from '@gw/contracts';
import { serveDirect, startServiceReplica, type ServiceBootstrapOptions, type ServiceReplica } from '@gw/messaging';
import { AppModule } from '../app.module.js';
import type { InternSigningEnv } from '../env.js';
import { DaemonSigningController } from './daemon-signing.controller.js';

/**
 * `interns.daemon.sign` on a plain NATS subscription of the replica's transport connection, in
 * its queue group (ADR 0070): Nest's dispatch cost more per signature than anything but the
 * Ed25519 signature. Ready (flushed) when this resolves.
 */
export async function serveSigningSubject(replica: ServiceReplica, queue: string): Promise<void> {
  const controller = replica.app.get(DaemonSigningController);
  serveDirect(replica.server, DaemonSign.subject, queue, (data) => controller.sign(data as DaemonSignRequest));
  await replica.server.flush();
}

/** One intern-signing replica: Nest's microservice for every subject, and the sign subject served directly. */
export async function startInternSigningReplica(env: InternSigningEnv, options: ServiceBootstrapOptions): Promise<ServiceReplica> {
  const replica = await startServiceReplica(AppModule.forRoot(env), options);
  await serveSigningSubject(replica, options.queue);
  return replica;
}
