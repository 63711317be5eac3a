import { Anchor, Badge, Button, Code, Drawer, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable, RowsTable } from '../data-table';
import { formatCount, formatCredits, formatMs, formatTime } from '../format';
import { navigate, useQuery } from '../router';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Generation, Page } from './shapes';

/** `GET /v1/generations` with the API's filters, and `GET /v1/generation?id=` as the detail. */
export function GenerationsPage() {
  const query = useQuery();
  const [model, setModel] = useState(query.get('model') ?? '');
  const [keyHash, setKeyHash] = useState(query.get('key_hash') ?? '');
  const [cursors, setCursors] = useState<string[]>([]);
  const filters = new URLSearchParams({ limit: '25' });
  if (query.get('model')) filters.set('model', query.get('model')!);
  if (query.get('key_hash')) filters.set('key_hash', query.get('key_hash')!);
  const cursor = cursors.at(-1);
  if (cursor) filters.set('cursor', cursor);
  const state = useLoad(() => api<Page<Generation>>(`/v1/generations?${filters}`), filters.toString());
  const selected = query.get('id');
  const apply = () => {
    const next = new URLSearchParams();
    if (model) next.set('model', model);
    if (keyHash) next.set('key_hash', keyHash);
    setCursors([]);
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
      <form
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <Group align="flex-end" mb="md" wrap="wrap">
          <TextInput
            label="Model"
            placeholder="openai/gpt-4o-mini"
            value={model}
            onChange={(event) => setModel(event.currentTarget.value)}
          />
          <TextInput label="Key hash" value={keyHash} onChange={(event) => setKeyHash(event.currentTarget.value)} />
          <Button type="submit">Filter</Button>
        </Group>
      </form>
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
        footer={(page) => (
          <Group mt="md">
            <Button variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </Button>
            <Button variant="default" disabled={!page.next_cursor} onClick={() => setCursors([...cursors, page.next_cursor!])}>
              Older
            </Button>
          </Group>
        )}
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
