import { Code } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { FilterForm, useCursorPages } from '../list-controls';
import { PageHeader, useLoad } from '../ui';
import type { AuditEntry } from './shapes';

/** `GET /v1/audit-logs`: who changed what in the workspace, newest first, with the API's filters and cursor pages. */
export function AuditPage() {
  const [applied, setApplied] = useState<Record<string, string>>({});
  const pages = useCursorPages();
  const query = new URLSearchParams({ limit: '50' });
  for (const [name, value] of Object.entries(applied)) if (value) query.set(name, value);
  if (pages.cursor) query.set('cursor', pages.cursor);
  const state = useLoad(() => api<{ data: AuditEntry[]; next_cursor: string | null }>(`/v1/audit-logs?${query}`), query.toString());
  return (
    <>
      <PageHeader title="Audit log" docs="GET /v1/audit-logs" />
      <FilterForm
        fields={[
          { name: 'action', label: 'Action', placeholder: 'keys.update' },
          { name: 'resource_type', label: 'Resource type', placeholder: 'api_key' },
        ]}
        initial={applied}
        onApply={(values) => {
          pages.reset();
          setApplied(values);
        }}
      />
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No changes recorded yet."
        rowKey={(entry) => entry.id}
        rowTestId="audit-row"
        minWidth={720}
        columns={[
          { header: 'Time', cell: (entry) => formatTime(entry.created_at) },
          // Actions are dotted names (keys.update): whole words, never cut to fit a badge.
          { header: 'Action', cell: (entry) => <Code style={{ whiteSpace: 'nowrap' }}>{entry.action}</Code> },
          {
            header: 'Resource',
            cell: (entry) => (
              <span title={entry.resource_id}>
                {entry.resource_type} {entry.resource_id.length > 16 ? `${entry.resource_id.slice(0, 12)}…` : entry.resource_id}
              </span>
            ),
          },
          { header: 'By', cell: (entry) => actorOf(entry) },
          {
            header: 'Change',
            td: { maw: 480 },
            cell: (entry) => <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{changeOf(entry)}</Code>,
          },
        ]}
        footer={(page) => pages.pager(page.next_cursor)}
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
