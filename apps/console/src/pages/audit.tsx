import { Badge, Button, Code, Group, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { PageHeader, useLoad } from '../ui';
import type { AuditEntry } from './shapes';

/** `GET /v1/audit-logs`: who changed what in the workspace, newest first, with the API's filters and cursor pages. */
export function AuditPage() {
  const [filters, setFilters] = useState({ action: '', resource_type: '' });
  const [applied, setApplied] = useState(filters);
  const [cursors, setCursors] = useState<string[]>([]);
  const query = new URLSearchParams({ limit: '50' });
  for (const [name, value] of Object.entries(applied)) if (value) query.set(name, value);
  if (cursors.length) query.set('cursor', cursors.at(-1)!);
  const state = useLoad(() => api<{ data: AuditEntry[]; next_cursor: string | null }>(`/v1/audit-logs?${query}`), query.toString());
  return (
    <>
      <PageHeader title="Audit log" docs="GET /v1/audit-logs" />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setApplied(filters);
        }}
      >
        <Group align="flex-end" mb="md" wrap="wrap">
          <TextInput
            label="Action"
            placeholder="keys.update"
            value={filters.action}
            onChange={(event) => setFilters({ ...filters, action: event.currentTarget.value })}
          />
          <TextInput
            label="Resource type"
            placeholder="api_key"
            value={filters.resource_type}
            onChange={(event) => setFilters({ ...filters, resource_type: event.currentTarget.value })}
          />
          <Button type="submit">Filter</Button>
        </Group>
      </form>
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No changes recorded yet."
        rowKey={(entry) => entry.id}
        rowTestId="audit-row"
        minWidth={720}
        columns={[
          { header: 'Time', cell: (entry) => formatTime(entry.created_at) },
          { header: 'Action', cell: (entry) => <Badge variant="light">{entry.action}</Badge> },
          { header: 'Resource', cell: (entry) => `${entry.resource_type} ${entry.resource_id}` },
          { header: 'By', cell: (entry) => actorOf(entry) },
          { header: 'Change', cell: (entry) => <Code>{changeOf(entry)}</Code> },
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
    </>
  );
}

const actorOf = (entry: AuditEntry) =>
  [
    entry.actor.kind,
    entry.actor.user_id && `user ${entry.actor.user_id.slice(0, 8)}`,
    entry.actor.key_hash && `key ${entry.actor.key_hash.slice(0, 8)}`,
  ]
    .filter(Boolean)
    .join(' · ');

/** The fields whose value changed, before → after (the API never records a secret). */
function changeOf(entry: AuditEntry): string {
  const before = (entry.before ?? {}) as Record<string, unknown>;
  const after = (entry.after ?? {}) as Record<string, unknown>;
  if (entry.before == null) return 'created';
  if (entry.after == null) return 'deleted';
  const changed = Object.keys({ ...before, ...after }).filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
  return changed.map((field) => `${field}: ${JSON.stringify(before[field])} → ${JSON.stringify(after[field])}`).join(', ') || '—';
}
