import { Button, Center, Divider, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { signInWithKey } from '../api';
import { ErrorNote } from '../ui';

/** People go to the gateway's SSO sign-in; the operator (no user of any workspace) signs in with their operator key. */
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
            <Divider label="Operators" labelPosition="center" />
            <form
              onSubmit={(event) => {
                event.preventDefault();
                signInWithKey(key).then(() => window.location.assign('/console/'), setError);
              }}
            >
              <Stack gap="xs">
                {error && <ErrorNote error={error} />}
                <PasswordInput
                  label="Operator key"
                  value={key}
                  onChange={(event) => setKey(event.currentTarget.value)}
                  autoComplete="off"
                />
                <Button type="submit" variant="default" disabled={key === ''}>
                  Sign in with the operator key
                </Button>
              </Stack>
            </form>
          </Stack>
        </Paper>
      </main>
    </Center>
  );
}
