import { Badge, Button, Code, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { ConfirmButton } from '../confirm-button';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { useOffsetPages } from '../list-controls';
import { ErrorNote, PageHeader, useLoad, useWrite } from '../ui';
import type { ByokCredential, Page } from './shapes';

const PAGE_SIZE = 100;

/** Provider keys of the workspace: only their masked labels are ever shown (the API returns no secret). */
export function ByokPage() {
  const pages = useOffsetPages(PAGE_SIZE);
  const state = useLoad(() => api<Page<ByokCredential>>(`/v1/byok?limit=${PAGE_SIZE}&offset=${pages.offset}`), String(pages.offset));
  const [adding, setAdding] = useState(false);
  const { error, act } = useWrite(state.reload);
  const [tests, setTests] = useState<Record<string, ByokTest | 'testing'>>({});
  const test = (id: string) => {
    setTests((previous) => ({ ...previous, [id]: 'testing' }));
    api<{ data: ByokTest }>(`/v1/byok/${id}/test`, { method: 'POST' }).then(
      ({ data }) => setTests((previous) => ({ ...previous, [id]: data })),
      (failure: Error) => setTests((previous) => ({ ...previous, [id]: { ok: false, status: null, message: failure.message } })),
    );
  };
  return (
    <>
      <PageHeader title="BYOK credentials" docs="GET/POST /v1/byok, PATCH/DELETE /v1/byok/{id}, POST /v1/byok/{id}/test">
        <Button onClick={() => setAdding(true)}>Add credential</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No provider keys: requests use the gateway's own."
        rowKey={(credential) => credential.id}
        minWidth={760}
        columns={[
          {
            header: 'Name',
            cell: (credential) => (
              <>
                {credential.name} {credential.disabled && <Badge color="gray.8">disabled</Badge>}
              </>
            ),
          },
          { header: 'Provider', cell: (credential) => credential.provider },
          { header: 'Key', cell: (credential) => <Code>{credential.label}</Code> },
          { header: 'Added', cell: (credential) => formatTime(credential.created_at) },
          { header: 'Connection', testId: 'byok-test-result', cell: (credential) => <TestResult result={tests[credential.id]} /> },
          {
            header: 'Actions',
            cell: (credential) => (
              <Group gap="xs" wrap="nowrap">
                <Button
                  size="xs"
                  variant="default"
                  aria-label={`Test credential ${credential.name}`}
                  disabled={credential.disabled}
                  loading={tests[credential.id] === 'testing'}
                  onClick={() => test(credential.id)}
                >
                  Test
                </Button>
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
                <ConfirmButton
                  color="red"
                  variant="light"
                  label={`Delete credential ${credential.name}`}
                  question={`Delete “${credential.name}”? Requests that use it fall back to the gateway's own keys or fail.`}
                  confirm="Delete"
                  onConfirm={() => void act(() => api(`/v1/byok/${credential.id}`, { method: 'DELETE' }))}
                >
                  Delete
                </ConfirmButton>
              </Group>
            ),
          },
        ]}
        footer={(page) => pages.pager(page.data.length, page.total_count)}
      />
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

interface ByokTest {
  ok: boolean;
  status: number | null;
  message: string;
}

function TestResult({ result }: { result: ByokTest | 'testing' | undefined }) {
  if (result === undefined || result === 'testing') return <Text c="dimmed">{result === 'testing' ? 'testing…' : 'not tested'}</Text>;
  return (
    <Badge color={result.ok ? 'teal.9' : 'red.9'} variant="filled" title={result.message} style={{ textTransform: 'none' }}>
      {result.ok ? 'ok' : result.message}
    </Badge>
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
