import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

// The title in the text's colour: the green's own shade falls under WCAG AA on the green background.
/** A new key's secret: shown once, copyable, gone when hidden (the API never answers it again). */
export function SecretOnce({ title, secret, onClose }: { title: string; secret: string; onClose: () => void }) {
  return (
    <Alert
      color="green"
      styles={{ title: { color: 'var(--mantine-color-bright)' } }}
      title={title}
      mb="md"
      withCloseButton
      onClose={onClose}
      closeButtonLabel="Hide the secret"
    >
      <Stack gap="xs">
        <Text size="sm" c="bright">
          Copy it now: it is shown once and never again.
        </Text>
        <Group wrap="nowrap">
          <Code data-testid="new-key-secret" style={{ wordBreak: 'break-all' }}>
            {secret}
          </Code>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}
