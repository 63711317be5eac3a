/**
 * Whether this replica should still be sent work. It stops being ready the moment it is asked
 * to stop (SIGTERM), before anything else happens, so load balancers and probes move traffic
 * away while the requests it already has are finished.
 */
export class ReplicaLifecycle {
  private drainingSince: number | undefined;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  startDraining(): void {
    this.drainingSince ??= Date.now();
  }
}
