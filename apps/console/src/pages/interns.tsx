import { Anchor, Badge, Button, Code, Group, Modal, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { ConfirmButton } from '../confirm-button';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { KeyActions, KeyName, rotateKey } from '../key-actions';
import { SecretOnce } from '../secret-once';
import { useCursorPages } from '../list-controls';
import { ErrorNote, PageHeader, useLoad, useWrite } from '../ui';
import type { ApiKey, Intern, Page } from './shapes';

/** Interns (`GET/POST/DELETE /v1/interns`) and, for the one picked, its keys (keys made with `intern_id`). */
export function InternsPage() {
  const pages = useCursorPages();
  const query = `limit=100${pages.cursor ? `&starting_after=${encodeURIComponent(pages.cursor)}` : ''}`;
  const state = useLoad(() => api<Page<Intern> & { has_more: boolean }>(`/v1/interns?${query}`), query);
  const [creating, setCreating] = useState(false);
  const [picked, setPicked] = useState<Intern | null>(null);
  const { error, act } = useWrite(state.reload);
  return (
    <>
      <PageHeader title="Interns" docs="GET/POST /v1/interns, DELETE /v1/interns/{id}, POST /v1/keys (intern_id)">
        <Button onClick={() => setCreating(true)}>Create intern</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No interns yet."
        rowKey={(intern) => intern.id}
        rowTestId="intern-row"
        minWidth={640}
        columns={[
          {
            header: 'Name',
            cell: (intern) => (
              <Anchor component="button" type="button" onClick={() => setPicked(intern)} title="Show its keys">
                {intern.name}
              </Anchor>
            ),
          },
          { header: 'Status', cell: (intern) => <Badge variant="light">{intern.status}</Badge> },
          { header: 'Model', cell: (intern) => intern.model ?? '—' },
          { header: 'Host', cell: (intern) => intern.hostname ?? '—' },
          { header: 'Created', cell: (intern) => formatTime(intern.created_at) },
          {
            header: 'Actions',
            cell: (intern) => (
              <ConfirmButton
                color="red"
                variant="light"
                label={`Delete intern ${intern.name}`}
                question={`Delete the intern “${intern.name}” and its keys?`}
                confirm="Delete"
                onConfirm={() => {
                  if (picked?.id === intern.id) setPicked(null);
                  void act(() => api(`/v1/interns/${intern.id}`, { method: 'DELETE' }));
                }}
              >
                Delete
              </ConfirmButton>
            ),
          },
        ]}
        footer={(page) => pages.pager(page.has_more ? page.next_cursor : null)}
      />
      {picked && <InternKeys intern={picked} />}
      <CreateIntern
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={(intern) => {
          setCreating(false);
          setPicked(intern);
          state.reload();
        }}
      />
    </>
  );
}

/** GET /v1/keys has no intern filter: its pages of 100 are walked (a bounded number) and this intern's kept. */
async function keysOf(intern: Intern): Promise<Page<ApiKey>> {
  const mine: ApiKey[] = [];
  for (let offset = 0; offset < 2000; offset += 100) {
    const page = await api<Page<ApiKey>>(`/v1/keys?include_disabled=true&offset=${offset}`);
    mine.push(...page.data.filter((key) => key.intern_id === intern.id));
    if (page.data.length < 100) break;
  }
  return { data: mine };
}

function InternKeys({ intern }: { intern: Intern }) {
  const keys = useLoad(() => keysOf(intern), intern.id);
  const [created, setCreated] = useState<string | null>(null);
  const { error, act } = useWrite(keys.reload);
  const rotate = (key: ApiKey) =>
    act(async () => {
      setCreated(await rotateKey(key));
    });
  const create = () =>
    act(async () => {
      const answer = await api<{ key: string }>('/v1/keys', { method: 'POST', body: { name: `${intern.name} key`, intern_id: intern.id } });
      setCreated(answer.key);
    });
  return (
    <>
      <Group justify="space-between" mt="lg" mb="sm">
        <Title order={2} size="h4">
          Keys of {intern.name}
        </Title>
        <Button variant="default" onClick={() => void create()}>
          Create a key for {intern.name}
        </Button>
      </Group>
      {error && <ErrorNote error={error} />}
      {created && <SecretOnce title={`Key of ${intern.name} created`} secret={created} onClose={() => setCreated(null)} />}
      <DataTable
        state={keys}
        rows={(page) => page.data.filter((key) => key.intern_id === intern.id)}
        empty="This intern has no key yet."
        rowKey={(key) => key.hash}
        rowTestId="intern-key-row"
        minWidth={640}
        columns={[
          { header: 'Name', cell: (key) => <KeyName apiKey={key} /> },
          { header: 'Key', cell: (key) => <Code>{key.label}</Code> },
          { header: 'Usage', cell: (key) => formatCredits(key.usage) },
          { header: 'Last used', cell: (key) => formatTime(key.last_used_at) },
          { header: 'Actions', cell: (key) => <KeyActions apiKey={key} act={act} rotate={rotate} /> },
        ]}
      />
    </>
  );
}

function CreateIntern({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: (intern: Intern) => void }) {
  const [fields, setFields] = useState({ name: '', description: '', model: '', hostname: '' });
  const [error, setError] = useState<Error | null>(null);
  const field = (name: keyof typeof fields) => ({
    value: fields[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => setFields({ ...fields, [name]: event.currentTarget.value }),
  });
  const submit = () => {
    const body = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
    api<Intern>('/v1/interns', { method: 'POST', body }).then((intern) => {
      setFields({ name: '', description: '', model: '', hostname: '' });
      onCreated(intern);
    }, setError);
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Create an intern">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          <TextInput label="Name" required data-autofocus {...field('name')} />
          <TextInput label="Description" {...field('description')} />
          <TextInput label="Model" placeholder="sim/gpt-4o-mini" {...field('model')} />
          <TextInput label="Host name" description="Where its daemon runs" {...field('hostname')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit">Create</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
