import { Badge, Button, Code, Group, Modal, PasswordInput, Stack, Table, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { formatTime } from '../format';
import { ErrorNote, Loadable, PageHeader, useLoad } from '../ui';
import type { ByokCredential, Page } from './shapes';

/** Provider keys of the workspace: only their masked labels are ever shown (the API returns no secret). */
export function ByokPage() {
  const state = useLoad(() => api<Page<ByokCredential>>('/v1/byok?limit=100'));
  const [adding, setAdding] = useState(false);
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
      <PageHeader title="BYOK credentials" docs="GET/POST /v1/byok, PATCH/DELETE /v1/byok/{id}">
        <Button onClick={() => setAdding(true)}>Add credential</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      <Loadable state={state} empty="No provider keys: requests use the gateway's own." isEmpty={(page) => page.data.length === 0}>
        {(page) => (
          <Table.ScrollContainer minWidth={600}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Provider</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Added</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data.map((credential) => (
                  <Table.Tr key={credential.id}>
                    <Table.Td>
                      {credential.name} {credential.disabled && <Badge color="gray.8">disabled</Badge>}
                    </Table.Td>
                    <Table.Td>{credential.provider}</Table.Td>
                    <Table.Td>
                      <Code>{credential.label}</Code>
                    </Table.Td>
                    <Table.Td>{formatTime(credential.created_at)}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="default"
                          aria-label={`${credential.disabled ? 'Enable' : 'Disable'} credential ${credential.name}`}
                          onClick={() =>
                            void act(() => api(`/v1/byok/${credential.id}`, { method: 'PATCH', body: { disabled: !credential.disabled } }))
                          }
                        >
                          {credential.disabled ? 'Enable' : 'Disable'}
                        </Button>
                        <Button
                          size="xs"
                          color="red"
                          variant="light"
                          aria-label={`Delete credential ${credential.name}`}
                          onClick={() =>
                            window.confirm(`Delete “${credential.name}”?`) &&
                            void act(() => api(`/v1/byok/${credential.id}`, { method: 'DELETE' }))
                          }
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
      <AddCredential
        opened={adding}
        onClose={() => setAdding(false)}
        onAdded={() => {
          setAdding(false);
          state.reload();
        }}
      />
    </>
  );
}

function AddCredential({ opened, onClose, onAdded }: { opened: boolean; onClose: () => void; onAdded: () => void }) {
  const [provider, setProvider] = useState('');
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error | null>(null);
  return (
    <Modal opened={opened} onClose={onClose} title="Add a provider key">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          api('/v1/byok', { method: 'POST', body: { provider, key, ...(name ? { name } : {}) } }).then(() => {
            setKey('');
            onAdded();
          }, setError);
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          <TextInput
            label="Provider"
            placeholder="openai"
            required
            value={provider}
            onChange={(event) => setProvider(event.currentTarget.value)}
          />
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} />
          <PasswordInput
            label="Provider API key"
            required
            value={key}
            onChange={(event) => setKey(event.currentTarget.value)}
            autoComplete="off"
          />
          <Group justify="flex-end">
            <Button type="submit">Add</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
