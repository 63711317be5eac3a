import { createContext, useContext } from 'react';
import type { SessionInfo } from './api';

export const SessionContext = createContext<SessionInfo | null>(null);

export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

/** Owners manage the workspace (keys, BYOK, credits); members see their own activity. */
export const canManage = (session: SessionInfo) => session.key_kind === 'management';

/** The operator (signed in with an operator key) sees the catalog, not a workspace. */
export const canEditCatalog = (session: SessionInfo) => session.key_kind === 'operator';
