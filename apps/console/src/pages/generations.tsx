import { Anchor, Badge, Code, Drawer, Group, Stack, Text } from '@mantine/core';
import { api } from '../api';
import { DataTable, RowsTable } from '../data-table';
import { formatCount, formatCredits, formatMs, formatTime } from '../format';
import { FilterForm, useCursorPages } from '../list-controls';
import { navigate, useQuery } from '../router';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Generation, Page } from './shapes';

const FILTERS = ['model', 'key_hash'] as const;

/** `GET /v1/generations` with the API's filters, and `GET /v1/generation?id=` as the detail. */
export function GenerationsPage() {
  const query = useQuery();
  const pages = useCursorPages();
  const filters = new URLSearchParams({ limit: '25' });
  for (const name of FILTERS) if (query.get(name)) filters.set(name, query.get(name)!);
  if (pages.cursor) filters.set('cursor', pages.cursor);
  const state = useLoad(() => api<Page<Generation>>(`/v1/generations?${filters}`), filters.toString());
  const selected = query.get('id');
  // The filters live in the URL: a filtered list can be linked to, and the overview links here.
  const apply = (values: Record<string, string>) => {
    const next = new URLSearchParams();
    for (const name of FILTERS) if (values[name]) next.set(name, values[name]);
    pages.reset();
    navigate(`/generations${next.size ? `?${next}` : ''}`);
  };
  const open = (id: string | null) => {
    const next = new URLSearchParams(window.location.search);
    if (id) next.set('id', id);
    else next.delete('id');
    navigate(`/generations${next.size ? `?${next}` : ''}`);
  };
  return (
    <>
      <PageHeader title="Generations" docs="GET /v1/generations, GET /v1/generation" />
      <FilterForm
        fields={[
          { name: 'model', label: 'Model', placeholder: 'openai/gpt-4o-mini' },
          { name: 'key_hash', label: 'Key hash' },
        ]}
        initial={Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? '']))}
        onApply={apply}
      />
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No generations match yet: requests appear here within seconds."
        rowKey={(generation) => generation.id}
        rowTestId="generation-row"
        minWidth={640}
        highlightOnHover
        columns={[
          {
            header: 'Time',
            cell: (generation) => (
              <Anchor component="button" type="button" onClick={() => open(generation.id)} title="Show the details">
                {formatTime(generation.created_at)}
              </Anchor>
            ),
          },
          { header: 'Model', cell: (generation) => generation.model },
          { header: 'Provider', cell: (generation) => generation.provider_name ?? '—' },
          {
            header: 'Tokens (in / out)',
            cell: (generation) => `${formatCount(generation.tokens_prompt)} / ${formatCount(generation.tokens_completion)}`,
          },
          { header: 'Cost', testId: 'generation-cost', cell: (generation) => formatCredits(generation.total_cost) },
          {
            header: 'Status',
            cell: (generation) => (
              <Badge color={generation.cancelled ? 'orange.9' : 'teal.9'} variant="light">
                {generation.cancelled ? 'cancelled' : (generation.finish_reason ?? 'done')}
              </Badge>
            ),
          },
        ]}
        footer={(page) => pages.pager(page.next_cursor)}
      />
      <Drawer opened={selected !== null} onClose={() => open(null)} position="right" size="lg" title="Generation">
        {selected && <GenerationDetail id={selected} />}
      </Drawer>
    </>
  );
}

function GenerationDetail({ id }: { id: string }) {
  const state = useLoad(() => api<{ data: Generation }>(`/v1/generation?id=${encodeURIComponent(id)}`), id);
  return (
    <Loadable state={state} empty="">
      {({ data }) => (
        <Stack gap="xs">
          <Text size="sm">
            <Code>{data.id}</Code>
          </Text>
          <Detail label="Model" value={data.model} />
          <Detail label="Created" value={formatTime(data.created_at)} />
          <Detail label="API" value={data.api_type ?? '—'} />
          <Detail label="Latency (first byte)" value={formatMs(data.latency)} />
          <Detail label="Generation time" value={formatMs(data.generation_time)} />
          <Detail label="Streamed" value={data.streamed ? 'yes' : 'no'} />
          <Detail label="Prompt tokens" value={formatCount(data.tokens_prompt)} />
          <Detail label="Completion tokens" value={formatCount(data.tokens_completion)} />
          <Detail label="Reasoning tokens" value={formatCount(data.native_tokens_reasoning)} />
          <Detail label="Cached tokens" value={formatCount(data.native_tokens_cached)} />
          <Detail label="Total cost" value={formatCredits(data.total_cost)} testId="detail-total-cost" />
          <Detail label="Upstream cost" value={formatCredits(data.upstream_inference_cost)} />
          <Detail label="Cache discount" value={formatCredits(data.cache_discount)} />
          <Detail label="BYOK" value={data.is_byok ? 'yes' : 'no'} />
          <Text fw={600} mt="sm">
            Provider attempts
          </Text>
          {(data.provider_responses ?? []).length === 0 ? (
            <Text c="dimmed">None recorded.</Text>
          ) : (
            <RowsTable
              rows={data.provider_responses!.map((attempt, index) => ({ ...attempt, index }))}
              rowKey={(attempt) => String(attempt.index)}
              columns={[
                { header: 'Provider', cell: (attempt) => attempt.provider_name },
                { header: 'Model', cell: (attempt) => attempt.model_permaslug },
                { header: 'Status', cell: (attempt) => attempt.status ?? '—' },
              ]}
            />
          )}
        </Stack>
      )}
    </Loadable>
  );
}

function Detail({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId}>
        {value}
      </Text>
    </Group>
  );
}
