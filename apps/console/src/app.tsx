import { Center, Loader } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { loadSession, useCsrf, type SessionInfo } from './api';
import { SessionContext } from './session';
import { Shell } from './shell';
import { SignIn } from './pages/sign-in';
import { ErrorNote } from './ui';

export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const signedOut = useCallback(() => setSession(null), []);
  useEffect(() => {
    loadSession().then((info) => {
      if (info) useCsrf(info.csrf_token, signedOut);
      setSession(info);
    }, setError);
  }, [signedOut]);
  if (error) return <ErrorNote error={error} />;
  if (session === undefined) {
    return (
      <Center h="100vh" role="status">
        <Loader aria-label="Loading the console" />
      </Center>
    );
  }
  if (session === null) return <SignIn />;
  return (
    <SessionContext.Provider value={session}>
      <Shell onSignedOut={signedOut} />
    </SessionContext.Provider>
  );
}
