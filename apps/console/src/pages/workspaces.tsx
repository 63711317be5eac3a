import { Badge, Title } from '@mantine/core';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { useSession } from '../session';
import { PageHeader, useLoad } from '../ui';
import type { Page, WorkspaceBudget, WorkspaceMember } from './shapes';

/** Members and budgets of the signed-in workspace, in the shapes of `@openrouter/sdk`'s `workspaces.listMembers` / `listBudgets`. */
export function WorkspacesPage() {
  const { user } = useSession();
  const members = useLoad(() => api<Page<WorkspaceMember>>(`/v1/workspaces/${user.workspace_id}/members`));
  const budgets = useLoad(() => api<Page<WorkspaceBudget>>(`/v1/workspaces/${user.workspace_id}/budgets`));
  return (
    <>
      <PageHeader title="Members & budgets" docs="GET /v1/workspaces/{id}/members, GET /v1/workspaces/{id}/budgets" />
      <Title order={2} size="h4" mb="sm">
        Members
      </Title>
      <DataTable
        state={members}
        rows={(page) => page.data}
        empty="No members."
        rowKey={(member) => member.id}
        columns={[
          { header: 'User', cell: (member) => member.user_id },
          { header: 'Role', cell: (member) => <Badge variant="light">{member.role}</Badge> },
          { header: 'Since', cell: (member) => formatTime(member.created_at) },
        ]}
      />
      <Title order={2} size="h4" mt="lg" mb="sm">
        Budgets
      </Title>
      <DataTable
        state={budgets}
        rows={(page) => page.data}
        empty="No budgets set."
        rowKey={(budget) => budget.id}
        columns={[
          { header: 'Limit', cell: (budget) => formatCredits(budget.limit_usd) },
          { header: 'Resets', cell: (budget) => budget.reset_interval ?? 'never' },
          { header: 'Updated', cell: (budget) => formatTime(budget.updated_at) },
        ]}
      />
    </>
  );
}
