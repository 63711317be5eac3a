import { api } from '../api';
import { DataTable } from '../data-table';
import { formatCredits, formatTime } from '../format';
import { PageHeader, useLoad } from '../ui';
import type { Guardrail, Page } from './shapes';

/** `@openrouter/sdk`'s `guardrails.list` shape. */
export function GuardrailsPage() {
  const state = useLoad(() => api<Page<Guardrail>>('/v1/guardrails'));
  return (
    <>
      <PageHeader title="Guardrails" docs="GET /v1/guardrails" />
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No guardrails yet."
        rowKey={(guardrail) => guardrail.id}
        minWidth={560}
        columns={[
          { header: 'Name', cell: (guardrail) => guardrail.name },
          {
            header: 'Spend limit',
            cell: (guardrail) =>
              `${guardrail.limit_usd == null ? 'none' : formatCredits(guardrail.limit_usd)}${guardrail.reset_interval ? ` / ${guardrail.reset_interval}` : ''}`,
          },
          { header: 'Models', cell: (guardrail) => guardrail.allowed_models?.join(', ') || 'all' },
          { header: 'Providers', cell: (guardrail) => guardrail.allowed_providers?.join(', ') || 'all' },
          { header: 'Created', cell: (guardrail) => formatTime(guardrail.created_at) },
        ]}
      />
    </>
  );
}
