import { Badge, Button, Group, MultiSelect, NumberInput, Select, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { FormModal } from '../form-modal';
import { ConfirmButton } from '../confirm-button';
import { DataTable } from '../data-table';
import { formatCredits, formatTime, personOf } from '../format';
import { useSession } from '../session';
import { useOffsetPages } from '../list-controls';
import { ErrorNote, Loadable, PageHeader, useLoad, useWrite } from '../ui';
import type { OrganizationMember, Page, WorkspaceBudget, WorkspaceMember } from './shapes';

const INTERVALS = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'lifetime', label: 'Lifetime' },
];

/** Members per page; each one's budgets are read beside them. */
const MEMBERS_PAGE = 50;

const budgetText = (budget: WorkspaceBudget) =>
  `${formatCredits(budget.usage_usd)} of ${formatCredits(budget.limit_usd)} ${budget.reset_interval ?? 'lifetime'}`;

/**
 * Members and budgets of the signed-in workspace, in the shapes of `@openrouter/sdk`'s
 * `workspaces.listMembers` / `listBudgets`; a member's budget caps all their keys here.
 */
export function WorkspacesPage() {
  const { user } = useSession();
  const base = `/v1/workspaces/${user.workspace_id}`;
  const pages = useOffsetPages(MEMBERS_PAGE);
  // Each member's budgets beside them: one call per member of the page shown.
  const members = useLoad(async () => {
    const page = await api<Page<WorkspaceMember>>(`${base}/members?limit=${MEMBERS_PAGE}&offset=${pages.offset}`);
    const budgets = await Promise.all(
      page.data.map((member) => api<{ data: WorkspaceBudget[] }>(`${base}/members/${member.user_id}/budgets`)),
    );
    return { ...page, data: page.data.map((member, index) => ({ ...member, budgets: budgets[index]!.data })) };
  }, String(pages.offset));
  const budgets = useLoad(() => api<{ data: WorkspaceBudget[] }>(`${base}/budgets`));
  const [editing, setEditing] = useState<WorkspaceMember | null>(null);
  const [adding, setAdding] = useState(false);
  const { error, act } = useWrite(members.reload);
  const remove = (member: WorkspaceMember) =>
    act(() => api(`${base}/members/remove`, { method: 'POST', body: { user_ids: [member.user_id] } }));
  return (
    <>
      <PageHeader
        title="Members & budgets"
        docs="GET /v1/workspaces/{id}/members, POST /v1/workspaces/{id}/members/add|remove, GET /v1/workspaces/{id}/budgets, PUT /v1/workspaces/{id}/members/{user_id}/budgets/{interval}"
      >
        <Button onClick={() => setAdding(true)}>Add members</Button>
      </PageHeader>
      {error && <ErrorNote error={error} />}
      <Title order={2} size="h4" mb="sm">
        Members
      </Title>
      <DataTable
        state={members}
        rows={(page) => page.data}
        empty="No members."
        rowKey={(member) => member.id}
        rowTestId="member-row"
        minWidth={760}
        columns={[
          { header: 'Member', cell: (member) => (member.user_id === user.id ? `${personOf(member)} (you)` : personOf(member)) },
          // Wide enough for the whole word: a narrow cell cut the badge to 'O…'.
          { header: 'Role', td: { miw: 100 }, cell: (member) => <Badge variant="light">{member.role}</Badge> },
          { header: 'Since', cell: (member) => formatTime(member.created_at) },
          {
            header: 'Budget',
            testId: 'member-budget',
            cell: (member) => (member.budgets.length === 0 ? 'none' : member.budgets.map(budgetText).join(' · ')),
          },
          {
            header: 'Actions',
            cell: (member) => (
              <Group gap="xs" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEditing(member)} aria-label={`Set budget of ${personOf(member)}`}>
                  Set budget
                </Button>
                {member.user_id !== user.id && (
                  <ConfirmButton
                    variant="default"
                    color="red"
                    label={`Remove ${personOf(member)}`}
                    question="Their keys in this workspace are disabled at once; their generations and budgets stay on record."
                    confirm="Remove"
                    onConfirm={() => void remove(member)}
                  >
                    Remove
                  </ConfirmButton>
                )}
              </Group>
            ),
          },
        ]}
        footer={(page) => pages.pager(page.data.length, page.total_count)}
      />
      <Title order={2} size="h4" mt="lg" mb="sm">
        Workspace budgets
      </Title>
      <DataTable
        state={budgets}
        rows={(answer) => answer.data}
        empty="No workspace budget set."
        rowKey={(budget) => budget.id}
        columns={[
          { header: 'Limit', cell: (budget) => formatCredits(budget.limit_usd) },
          { header: 'Used this period', cell: (budget) => formatCredits(budget.usage_usd) },
          { header: 'Resets', cell: (budget) => budget.reset_interval ?? 'never' },
          { header: 'Updated', cell: (budget) => formatTime(budget.updated_at) },
        ]}
      />
      {editing && (
        <MemberBudgetModal
          path={`${base}/members/${editing.user_id}/budgets`}
          member={personOf(editing)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            members.reload();
          }}
        />
      )}
      {adding && (
        <AddMembersModal
          base={base}
          onClose={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            members.reload();
          }}
        />
      )}
    </>
  );
}

/** Every row of an offset-paged list, a page of 100 at a time. */
async function everyPage<T>(path: string): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await api<Page<T>>(`${path}?limit=100&offset=${rows.length}`);
    rows.push(...page.data);
    if (page.data.length === 0 || rows.length >= (page.total_count ?? 0)) return rows;
  }
}

const ROLES = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
];

/**
 * People of the organization (who share a workspace with you) that are not in this one yet;
 * the API adds by user id, so people are picked by name and email, never typed as ids.
 */
function AddMembersModal({ base, onClose, onAdded }: { base: string; onClose: () => void; onAdded: () => void }) {
  const candidates = useLoad(async () => {
    const [people, current] = await Promise.all([
      everyPage<OrganizationMember>('/v1/organization/members'),
      everyPage<WorkspaceMember>(`${base}/members`),
    ]);
    const inWorkspace = new Set(current.map((member) => member.user_id));
    return people.filter((person) => !inWorkspace.has(person.id));
  });
  const [chosen, setChosen] = useState<string[]>([]);
  const [role, setRole] = useState<string | null>('member');
  const submit = async () => {
    await api(`${base}/members/add`, { method: 'POST', body: { user_ids: chosen, role } });
    onAdded();
  };
  return (
    <FormModal title="Add members" submit="Add" onSubmit={submit} onClose={onClose} disabled={chosen.length === 0}>
      <Loadable
        state={candidates}
        empty="Everyone who shares a workspace with you is already a member here."
        isEmpty={(people) => people.length === 0}
      >
        {(people) => (
          <MultiSelect
            label="People"
            required
            searchable
            data={people.map((person) => ({ value: person.id, label: `${person.first_name ?? ''} <${person.email}>`.trim() }))}
            value={chosen}
            onChange={setChosen}
            data-autofocus
          />
        )}
      </Loadable>
      <Select label="Role" data={ROLES} value={role} onChange={setRole} allowDeselect={false} />
    </FormModal>
  );
}

function MemberBudgetModal({ path, member, onClose, onSaved }: { path: string; member: string; onClose: () => void; onSaved: () => void }) {
  const [interval, setInterval] = useState<string | null>('daily');
  const [limit, setLimit] = useState<string | number>('');
  const submit = async () => {
    await api(`${path}/${interval}`, { method: 'PUT', body: { limit_usd: Number(limit) } });
    onSaved();
  };
  return (
    <FormModal title={`Budget of ${member}`} submit="Save budget" onSubmit={submit} onClose={onClose}>
      <Text size="sm">Caps the spend of all this member&apos;s keys in the workspace; over it, their requests are refused (402).</Text>
      <Select label="Resets" data={INTERVALS} value={interval} onChange={setInterval} allowDeselect={false} />
      <NumberInput label="Limit (USD)" required min={0} decimalScale={7} value={limit} onChange={setLimit} data-autofocus />
    </FormModal>
  );
}
