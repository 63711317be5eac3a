import { Table } from '@mantine/core';
import { api } from '../api';
import { formatCredits, formatTime } from '../format';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Guardrail, Page } from './shapes';

/** `@openrouter/sdk`'s `guardrails.list` shape: lights up when the gateway serves `GET /v1/guardrails`. */
export function GuardrailsPage() {
  const state = useLoad(() => api<Page<Guardrail>>('/v1/guardrails'));
  return (
    <>
      <PageHeader title="Guardrails" docs="GET /v1/guardrails" />
      <Loadable state={state} empty="No guardrails yet." isEmpty={(page) => page.data.length === 0}>
        {(page) => (
          <Table.ScrollContainer minWidth={560}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Spend limit</Table.Th>
                  <Table.Th>Models</Table.Th>
                  <Table.Th>Providers</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data.map((guardrail) => (
                  <Table.Tr key={guardrail.id}>
                    <Table.Td>{guardrail.name}</Table.Td>
                    <Table.Td>
                      {guardrail.limit_usd == null ? 'none' : formatCredits(guardrail.limit_usd)}
                      {guardrail.reset_interval ? ` / ${guardrail.reset_interval}` : ''}
                    </Table.Td>
                    <Table.Td>{guardrail.allowed_models?.join(', ') || 'all'}</Table.Td>
                    <Table.Td>{guardrail.allowed_providers?.join(', ') || 'all'}</Table.Td>
                    <Table.Td>{formatTime(guardrail.created_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Loadable>
    </>
  );
}
