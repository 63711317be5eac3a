import { Badge, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { ConfirmButton } from '../confirm-button';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { useOffsetPages } from '../list-controls';
import { canManage, useSession } from '../session';
import { ErrorNote, PageHeader, useLoad, useWrite } from '../ui';
import { GuardrailAssignmentsModal } from './guardrail-assignments';
import { GuardrailModal } from './guardrail-form';
import type { Guardrail, Page } from './shapes';

const PAGE_SIZE = 50;

const listText = (allowed: string[] | null, blocked: string[] | null) =>
  [allowed?.length ? `only ${allowed.join(', ')}` : 'all', blocked?.length ? `not ${blocked.join(', ')}` : ''].filter(Boolean).join('; ');

/** `@openrouter/sdk`'s `guardrails.*`: list, create, edit, delete, and assign to keys and members (owners and admins). */
export function GuardrailsPage() {
  const session = useSession();
  const manage = canManage(session);
  const pages = useOffsetPages(PAGE_SIZE);
  const state = useLoad(() => api<Page<Guardrail>>(`/v1/guardrails?limit=${PAGE_SIZE}&offset=${pages.offset}`), String(pages.offset));
  // The workspace's default guardrail (new keys get it) cannot be deleted: its Delete is off.
  const workspace = useLoad(() => api<{ data: { default_guardrail_id: string | null } }>(`/v1/workspaces/${session.user.workspace_id}`));
  const defaultId = workspace.data?.data.default_guardrail_id;
  const { error, act } = useWrite(state.reload);
  // The form: null closed, 'new' to create, a guardrail to edit.
  const [editing, setEditing] = useState<Guardrail | 'new' | null>(null);
  const [assigning, setAssigning] = useState<Guardrail | null>(null);
  return (
    <>
      <PageHeader
        title="Guardrails"
        docs="GET/POST /v1/guardrails, PATCH/DELETE /v1/guardrails/{id}, POST /v1/guardrails/{id}/assignments/keys"
      >
        {manage && <Button onClick={() => setEditing('new')}>Create guardrail</Button>}
      </PageHeader>
      {error && <ErrorNote error={error} />}
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No guardrails yet: a guardrail limits what the keys and members it is assigned to may spend and route to."
        rowKey={(guardrail) => guardrail.id}
        rowTestId="guardrail-row"
        minWidth={860}
        columns={[
          {
            header: 'Name',
            cell: (guardrail) => (
              <>
                {guardrail.name} {guardrail.id === defaultId && <Badge variant="light">default</Badge>}
                {guardrail.description && (
                  <Text size="xs" c="dimmed">
                    {guardrail.description}
                  </Text>
                )}
              </>
            ),
          },
          {
            header: 'Spend limit',
            testId: 'guardrail-limit',
            cell: (guardrail) =>
              `${guardrail.limit_usd == null ? 'none' : formatCredits(guardrail.limit_usd)}${guardrail.reset_interval ? ` / ${guardrail.reset_interval}` : ''}`,
          },
          {
            header: 'Models',
            testId: 'guardrail-models',
            cell: (guardrail) => listText(guardrail.allowed_models, guardrail.ignored_models),
          },
          { header: 'Providers', cell: (guardrail) => listText(guardrail.allowed_providers, guardrail.ignored_providers) },
          { header: 'Updated', cell: (guardrail) => formatTime(guardrail.updated_at ?? guardrail.created_at) },
          ...(manage
            ? [
                {
                  header: 'Actions',
                  cell: (guardrail: Guardrail) => (
                    <Group gap="xs" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Edit guardrail ${guardrail.name}`}
                        onClick={() => setEditing(guardrail)}
                      >
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Assign guardrail ${guardrail.name}`}
                        onClick={() => setAssigning(guardrail)}
                      >
                        Assign
                      </Button>
                      <ConfirmButton
                        color="red"
                        variant="light"
                        label={`Delete guardrail ${guardrail.name}`}
                        disabled={guardrail.id === defaultId}
                        question={`Delete the guardrail “${guardrail.name}”? The keys and members it is assigned to lose its limits at once.`}
                        confirm="Delete"
                        onConfirm={() => void act(() => api(`/v1/guardrails/${guardrail.id}`, { method: 'DELETE' }))}
                      >
                        Delete
                      </ConfirmButton>
                    </Group>
                  ),
                },
              ]
            : []),
        ]}
        footer={(page) => pages.pager(page.data.length, page.total_count)}
      />
      {editing && (
        <GuardrailModal
          guardrail={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            state.reload();
          }}
        />
      )}
      {assigning && (
        <GuardrailAssignmentsModal
          guardrail={assigning}
          workspaceId={assigning.workspace_id ?? session.user.workspace_id}
          onClose={() => setAssigning(null)}
        />
      )}
    </>
  );
}
