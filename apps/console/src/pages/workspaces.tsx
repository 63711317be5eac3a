import { Badge, Table, Title } from '@mantine/core';
import { api } from '../api';
import { formatCredits, formatTime } from '../format';
import { useSession } from '../session';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Page, WorkspaceBudget, WorkspaceMember } from './shapes';

/**
 * Members and budgets of the signed-in workspace, in the shapes of `@openrouter/sdk`'s
 * `workspaces.listMembers` and `workspaces.listBudgets`: the page lights up when the gateway
 * serves those routes, and says so in words until then.
 */
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
      <Loadable state={members} empty="No members." isEmpty={(page) => page.data.length === 0}>
        {(page) => (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>User</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Since</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.map((member) => (
                <Table.Tr key={member.id}>
                  <Table.Td>{member.user_id}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{member.role}</Badge>
                  </Table.Td>
                  <Table.Td>{formatTime(member.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Loadable>
      <Title order={2} size="h4" mt="lg" mb="sm">
        Budgets
      </Title>
      <Loadable state={budgets} empty="No budgets set." isEmpty={(page) => page.data.length === 0}>
        {(page) => (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Limit</Table.Th>
                <Table.Th>Resets</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.map((budget) => (
                <Table.Tr key={budget.id}>
                  <Table.Td>{formatCredits(budget.limit_usd)}</Table.Td>
                  <Table.Td>{budget.reset_interval ?? 'never'}</Table.Td>
                  <Table.Td>{formatTime(budget.updated_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Loadable>
    </>
  );
}
