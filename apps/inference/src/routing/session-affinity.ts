import { LRUCache } from 'lru-cache';

export interface SessionAffinityOptions {
  maxSessions: number;
  ttlMs: number;
}

/**
 * Sticky routing (spec §4.5 `session_id`): the endpoint a session last succeeded on, per
 * workspace and model. An LRU with a TTL, in one replica's memory: a session that goes quiet
 * for `ttlMs` (or is pushed out by `maxSessions` newer ones) is routed afresh; a replica that
 * never saw the session routes it by the normal order and remembers where it succeeded.
 * The TTL is refreshed on every success, so an active session keeps its endpoint (and the
 * provider's prompt cache) for as long as that endpoint stays healthy.
 */
export class SessionAffinity {
  private readonly sessions: LRUCache<string, string>;

  constructor(options: SessionAffinityOptions) {
    this.sessions = new LRUCache<string, string>({ max: options.maxSessions, ttl: options.ttlMs });
  }

  endpointFor(workspaceId: string, modelId: string, sessionId: string): string | undefined {
    return this.sessions.get(key(workspaceId, modelId, sessionId));
  }

  remember(workspaceId: string, modelId: string, sessionId: string, endpointKey: string): void {
    this.sessions.set(key(workspaceId, modelId, sessionId), endpointKey);
  }
}

function key(workspaceId: string, modelId: string, sessionId: string): string {
  return `${workspaceId}\u0000${modelId}\u0000${sessionId}`;
}
