import type { BusUser } from '../bus-permissions.js';

/**
 * Who serves a request-reply or streamed message and who may send it: the bus permissions of
 * every service are derived from these (`REQUEST_ROUTES`), never written by hand.
 */
export interface MessageRoute {
  /** The service whose queue group answers. */
  server: BusUser;
  /** Who may send the request. */
  callers: readonly BusUser[];
  /**
   * The request carries a `Principal` (acts for a key's workspace): only the gateway may send it,
   * and batch, which acts as the principal the gateway authenticated when the batch was submitted.
   */
  principal: boolean;
}

const GATEWAY = ['api-gateway'] as const;

/** Sent by the gateway for a key's workspace. */
export const forWorkspace = (server: BusUser): MessageRoute => ({ server, callers: GATEWAY, principal: true });

/** Sent by the gateway for a key's workspace, and by batch as the principal stored with a batch. */
export const forWorkspaceOrBatch = (server: BusUser): MessageRoute => ({ server, callers: ['api-gateway', 'batch'], principal: true });

/** Sent by batch only, as the principal stored with a batch (native provider batches). */
export const forBatch = (server: BusUser): MessageRoute => ({ server, callers: ['batch'], principal: true });

/** Sent by the gateway without a workspace's principal (health, the source of principals, the operator, sign-in). */
export const fromGateway = (server: BusUser): MessageRoute => ({ server, callers: GATEWAY, principal: false });

/** One service asking another for what one request needs, without a principal. */
export const between = (caller: BusUser, server: BusUser): MessageRoute => ({ server, callers: [caller], principal: false });
