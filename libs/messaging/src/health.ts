import type { HealthReply } from '@gw/contracts';
import { hostname } from 'node:os';

/** The replica's identity in health replies: host and process id. */
export const INSTANCE_ID = `${hostname()}:${process.pid}`;

export function healthReply(service: string): HealthReply {
  return { service, status: 'ok', instance: INSTANCE_ID };
}
