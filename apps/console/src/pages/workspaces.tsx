import { Badge, Button, Group, Modal, NumberInput, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { useSession } from '../session';
import { useOffsetPages } from '../list-controls';
import { ErrorNote, PageHeader, useLoad } from '../ui';
import type { Page, WorkspaceBudget, WorkspaceMember } from './shapes';

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
  // Each member's budgets beside them: one call per member of the page shown.
  const pages = useOffsetPages(MEMBERS_PAGE);
  const members = useLoad(async () => {
    const page = await api<Page<WorkspaceMember>>(`${base}/members?limit=${MEMBERS_PAGE}&offset=${pages.offset}`);
    const budgets = await Promise.all(
      page.data.map((member) => api<{ data: WorkspaceBudget[] }>(`${base}/members/${member.user_id}/budgets`)),
    );
    return { ...page, data: page.data.map((member, index) => ({ ...member, budgets: budgets[index]!.data })) };
  }, String(pages.offset));
  const budgets = useLoad(() => api<{ data: WorkspaceBudget[] }>(`${base}/budgets`));
  const [editing, setEditing] = useState<WorkspaceMember | null>(null);
  return (
    <>
      <PageHeader
        title="Members & budgets"
        docs="GET /v1/workspaces/{id}/members, GET /v1/workspaces/{id}/budgets, PUT /v1/workspaces/{id}/members/{user_id}/budgets/{interval}"
      />
      <Title order={2} size="h4" mb="sm">
        Members
      </Title>
      <DataTable
        state={members}
        rows={(page) => page.data}
        empty="No members."
        rowKey={(member) => member.id}
        rowTestId="member-row"
        minWidth={720}
        columns={[
          { header: 'User', cell: (member) => (member.user_id === user.id ? `${member.user_id} (you)` : member.user_id) },
          { header: 'Role', cell: (member) => <Badge variant="light">{member.role}</Badge> },
          { header: 'Since', cell: (member) => formatTime(member.created_at) },
          {
            header: 'Budget',
            testId: 'member-budget',
            cell: (member) => (member.budgets.length === 0 ? 'none' : member.budgets.map(budgetText).join(' · ')),
          },
          {
            header: 'Actions',
            cell: (member) => (
              <Button size="xs" variant="default" onClick={() => setEditing(member)} aria-label={`Set budget of ${member.user_id}`}>
                Set budget
              </Button>
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
          member={editing.user_id}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            members.reload();
          }}
        />
      )}
    </>
  );
}

function MemberBudgetModal({ path, member, onClose, onSaved }: { path: string; member: string; onClose: () => void; onSaved: () => void }) {
  const [interval, setInterval] = useState<string | null>('daily');
  const [limit, setLimit] = useState<string | number>('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await api(`${path}/${interval}`, { method: 'PUT', body: { limit_usd: Number(limit) } });
      onSaved();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Budget of ${member}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack>
          {error && <ErrorNote error={error} />}
          <Text size="sm">Caps the spend of all this member&apos;s keys in the workspace; over it, their requests are refused (402).</Text>
          <Select label="Resets" data={INTERVALS} value={interval} onChange={setInterval} allowDeselect={false} />
          <NumberInput label="Limit (USD)" required min={0} decimalScale={7} value={limit} onChange={setLimit} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Save budget
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
