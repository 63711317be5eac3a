import { Button, Code, NumberInput, Select, Switch, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { FormModal, LIMIT_RESETS } from '../form-modal';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { KeyActions, KeyName, rotateKey } from '../key-actions';
import { EditKeyModal } from '../key-edit';
import { useOffsetPages } from '../list-controls';
import { SecretOnce } from '../secret-once';
import { ErrorNote, PageHeader, useLoad, useWrite } from '../ui';
import type { ApiKey, Page } from './shapes';

/** Console sessions are keys too; they are listed apart, not mixed with people's keys. */
const SESSION_KEY_NAME = 'console session';
/** GET /v1/keys answers pages of 100 (it takes `offset`, no `limit`). */
const KEYS_PAGE = 100;

export function KeysPage() {
  const pages = useOffsetPages(KEYS_PAGE);
  const state = useLoad(() => api<Page<ApiKey>>(`/v1/keys?include_disabled=true&offset=${pages.offset}`), String(pages.offset));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null);
  const { error, act } = useWrite(state.reload);
  const rotate = (key: ApiKey) =>
    act(async () => {
      setCreated({ secret: await rotateKey(key), name: key.name });
    });
  return (
    <>
      <PageHeader title="API keys" docs="GET/POST /v1/keys, PATCH/DELETE /v1/keys/{hash}">
        <Button onClick={() => setCreating(true)}>Create key</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      {created && <SecretOnce title={`Key “${created.name}” created`} secret={created.secret} onClose={() => setCreated(null)} />}
      <DataTable
        state={state}
        rows={(page) => page.data.filter((key) => key.name !== SESSION_KEY_NAME)}
        empty="No keys yet: create one to call the API."
        rowKey={(key) => key.hash}
        rowTestId="key-row"
        minWidth={900}
        columns={[
          { header: 'Name', cell: (key) => <KeyName apiKey={key} /> },
          { header: 'Key', cell: (key) => <Code>{key.label}</Code> },
          {
            header: 'Limit',
            testId: 'key-limit',
            cell: (key) => (key.limit === null ? 'none' : `${formatCredits(key.limit)}${key.limit_reset ? ` / ${key.limit_reset}` : ''}`),
          },
          { header: 'Rate limit', cell: (key) => rateText(key) },
          { header: 'Usage', cell: (key) => formatCredits(key.usage) },
          { header: 'Last used', cell: (key) => formatTime(key.last_used_at) },
          { header: 'Expires', cell: (key) => formatTime(key.expires_at) },
          { header: 'Actions', cell: (key) => <KeyActions apiKey={key} act={act} rotate={rotate} edit={setEditing} /> },
        ]}
        footer={(page) => pages.pager(page.data.length)}
      />
      {editing && (
        <EditKeyModal
          apiKey={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            state.reload();
          }}
        />
      )}
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

const rateText = ({ rate_limit: rate }: ApiKey) =>
  [rate.requests_per_minute && `${rate.requests_per_minute}/min`, rate.concurrent_requests && `${rate.concurrent_requests} at once`]
    .filter(Boolean)
    .join(', ') || 'default';

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
  const submit = async () => {
    const body: Record<string, unknown> = { name, include_byok_in_limit: byok };
    if (limit !== '') body.limit = Number(limit);
    if (reset) body.limit_reset = reset;
    if (rpm !== '') body.rate_limit = { requests_per_minute: Number(rpm) };
    if (expires) body.expires_at = new Date(expires).toISOString();
    const answer = await api<{ key: string }>('/v1/keys', { method: 'POST', body });
    onCreated(answer.key, name);
    setName('');
  };
  return (
    <FormModal title="Create an API key" submit="Create" onSubmit={submit} onClose={onClose} opened={opened}>
      <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
      <NumberInput label="Spend limit (USD)" min={0} decimalScale={6} value={limit} onChange={setLimit} />
      <Select label="Limit resets" clearable data={LIMIT_RESETS} value={reset} onChange={setReset} />
      <Switch label="BYOK usage counts against the limit" checked={byok} onChange={(event) => setByok(event.currentTarget.checked)} />
      <NumberInput label="Requests per minute" min={1} value={rpm} onChange={setRpm} />
      <TextInput label="Expires" type="datetime-local" value={expires} onChange={(event) => setExpires(event.currentTarget.value)} />
    </FormModal>
  );
}
