import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { formatCredits, formatTime } from '../format';
import { ErrorNote, Loadable, PageHeader, useLoad } from '../ui';
import type { ApiKey, Page } from './shapes';

/** Console sessions are keys too; they are listed apart, not mixed with people's keys. */
const SESSION_KEY_NAME = 'console session';

export function KeysPage() {
  const state = useLoad(() => api<Page<ApiKey>>('/v1/keys?include_disabled=true'));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const act = async (write: () => Promise<unknown>) => {
    setError(null);
    try {
      await write();
      state.reload();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <>
      <PageHeader title="API keys" docs="GET/POST /v1/keys, PATCH/DELETE /v1/keys/{hash}">
        <Button onClick={() => setCreating(true)}>Create key</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      {created && (
        <Alert
          color="green"
          title={`Key “${created.name}” created`}
          mb="md"
          withCloseButton
          onClose={() => setCreated(null)}
          closeButtonLabel="Hide the secret"
        >
          <Stack gap="xs">
            <Text size="sm">Copy it now: it is shown once and never again.</Text>
            <Group wrap="nowrap">
              <Code data-testid="new-key-secret" style={{ wordBreak: 'break-all' }}>
                {created.secret}
              </Code>
              <CopyButton value={created.secret}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      <Loadable
        state={state}
        empty="No keys yet: create one to call the API."
        isEmpty={(page) => page.data.every((key) => key.name === SESSION_KEY_NAME)}
      >
        {(page) => (
          <Table.ScrollContainer minWidth={720}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Limit</Table.Th>
                  <Table.Th>Usage</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data
                  .filter((key) => key.name !== SESSION_KEY_NAME)
                  .map((key) => (
                    <Table.Tr key={key.hash} data-testid="key-row">
                      <Table.Td>
                        {key.name} {key.disabled && <Badge color="gray.8">disabled</Badge>}
                      </Table.Td>
                      <Table.Td>
                        <Code>{key.label}</Code>
                      </Table.Td>
                      <Table.Td>
                        {key.limit === null ? 'none' : `${formatCredits(key.limit)}${key.limit_reset ? ` / ${key.limit_reset}` : ''}`}
                      </Table.Td>
                      <Table.Td>{formatCredits(key.usage)}</Table.Td>
                      <Table.Td>{formatTime(key.last_used_at)}</Table.Td>
                      <Table.Td>{formatTime(key.expires_at)}</Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Button
                            size="xs"
                            variant="default"
                            aria-label={`${key.disabled ? 'Enable' : 'Disable'} key ${key.name}`}
                            onClick={() =>
                              void act(() => api(`/v1/keys/${key.hash}`, { method: 'PATCH', body: { disabled: !key.disabled } }))
                            }
                          >
                            {key.disabled ? 'Enable' : 'Disable'}
                          </Button>
                          <Button
                            size="xs"
                            color="red"
                            variant="light"
                            aria-label={`Delete key ${key.name}`}
                            onClick={() => {
                              if (window.confirm(`Delete the key “${key.name}”? Requests with it will fail at once.`)) {
                                void act(() => api(`/v1/keys/${key.hash}`, { method: 'DELETE' }));
                              }
                            }}
                          >
                            Delete
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Loadable>
      <CreateKeyModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(secret, name) => {
          setCreating(false);
          setCreated({ secret, name });
          state.reload();
        }}
      />
    </>
  );
}

function CreateKeyModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (secret: string, name: string) => void;
}) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState<string | number>('');
  const [reset, setReset] = useState<string | null>(null);
  const [rpm, setRpm] = useState<string | number>('');
  const [expires, setExpires] = useState('');
  const [byok, setByok] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = { name, include_byok_in_limit: byok };
      if (limit !== '') body.limit = Number(limit);
      if (reset) body.limit_reset = reset;
      if (rpm !== '') body.rate_limit = { requests_per_minute: Number(rpm) };
      if (expires) body.expires_at = new Date(expires).toISOString();
      const answer = await api<{ key: string }>('/v1/keys', { method: 'POST', body });
      onCreated(answer.key, name);
      setName('');
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Create an API key">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <NumberInput label="Spend limit (USD)" min={0} decimalScale={6} value={limit} onChange={setLimit} />
          <Select
            label="Limit resets"
            clearable
            data={[
              { value: 'daily', label: 'Daily' },
              { value: 'weekly', label: 'Weekly' },
              { value: 'monthly', label: 'Monthly' },
            ]}
            value={reset}
            onChange={setReset}
          />
          <Switch label="BYOK usage counts against the limit" checked={byok} onChange={(event) => setByok(event.currentTarget.checked)} />
          <NumberInput label="Requests per minute" min={1} value={rpm} onChange={setRpm} />
          <TextInput label="Expires" type="datetime-local" value={expires} onChange={(event) => setExpires(event.currentTarget.value)} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
