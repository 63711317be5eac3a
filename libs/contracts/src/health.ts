export interface HealthReply {
  service: string;
  status: 'ok';
  /** Replica identity, so a caller can see load spread across a queue group. */
  instance: string;
}
