import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';

/** The browser goes to the gateway's sign-in, which sends it to the deployment's identity provider. */
export function SignIn() {
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
          </Stack>
        </Paper>
      </main>
    </Center>
  );
}
