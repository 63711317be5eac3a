import { Button, Center, Divider, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { signInWithKey } from '../api';
import { ErrorNote } from '../ui';

/**
 * People go to the gateway's SSO sign-in; an admin may sign in with a management key, and the
 * operator (no user of any workspace) with their operator key. The key is posted once, exchanged
 * by the gateway for the session cookie, and dropped from the page's state.
 */
export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error | null>(null);
  return (
    <Center mih="100vh" p="md">
      <main>
        <Paper withBorder p="xl" maw={420}>
          <Stack>
            <Title order={1} size="h2">
              Gateway console
            </Title>
            <Text>Sign in with your organisation's identity provider to see spend and requests, and manage keys.</Text>
            <Button component="a" href="/console/auth/login" size="md">
              Sign in with SSO
            </Button>
            <Divider label="Automation admins and operators" labelPosition="center" />
            <form
              onSubmit={(event) => {
                event.preventDefault();
                signInWithKey(key).then(() => window.location.assign('/console/'), setError);
                setKey('');
              }}
            >
              <Stack gap="xs">
                {error && <ErrorNote error={error} />}
                <PasswordInput
                  label="Management or operator key"
                  value={key}
                  onChange={(event) => setKey(event.currentTarget.value)}
                  autoComplete="off"
                />
                <Button type="submit" variant="default" disabled={key === ''}>
                  Sign in with a key
                </Button>
              </Stack>
            </form>
          </Stack>
        </Paper>
      </main>
    </Center>
  );
}
