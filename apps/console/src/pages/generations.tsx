import { Anchor, Badge, Button, Drawer } from '@mantine/core';
import { useState } from 'react';
import { api, download } from '../api';
import { DataTable } from '../data-table';
import { formatCount, formatCredits, formatTime } from '../format';
import { useCursorPages } from '../list-controls';
import { navigate, useQuery } from '../router';
import { canManage, useSession } from '../session';
import { ErrorNote, PageHeader, useLoad } from '../ui';
import { ContentLoggingCard } from './content-logging';
import { GenerationDetail } from './generation-detail';
import { GenerationFilters } from './generation-filters';
import { filtersOf } from './generation-query';
import type { ContentLogging, Generation, Page } from './shapes';

/**
 * `GET /v1/generations` with every filter the API has, its export with the same filters,
 * `GET /v1/generation?id=` as the detail, and (owners and admins) the workspace's content logging.
 */
export function GenerationsPage() {
  const query = useQuery();
  const pages = useCursorPages();
  const manager = canManage(useSession());
  // The filters live in the URL: a filtered list can be linked to, and the overview links here.
  const filters = filtersOf(query);
  const listQuery = new URLSearchParams(filters);
  listQuery.set('limit', '25');
  if (pages.cursor) listQuery.set('cursor', pages.cursor);
  const state = useLoad(() => api<Page<Generation>>(`/v1/generations?${listQuery}`), listQuery.toString());
  const logging = useLoad(() => (manager ? api<{ data: ContentLogging }>('/v1/content-logging') : Promise.resolve(null)), String(manager));
  const [exportError, setExportError] = useState<Error | null>(null);
  const selected = query.get('id');
  const apply = (next: URLSearchParams) => {
    pages.reset();
    navigate(`/generations${next.size ? `?${next}` : ''}`);
  };
  const open = (id: string | null) => {
    const next = new URLSearchParams(window.location.search);
    if (id) next.set('id', id);
    else next.delete('id');
    navigate(`/generations${next.size ? `?${next}` : ''}`);
  };
  const exportAs = (format: 'csv' | 'jsonl') => {
    setExportError(null);
    const exported = new URLSearchParams(filters);
    exported.set('format', format);
    download(`/v1/generations/export?${exported}`, `generations.${format}`).catch((failure: Error) => setExportError(failure));
  };
  return (
    <>
      <PageHeader title="Generations" docs="GET /v1/generations, GET /v1/generations/export, GET /v1/generation">
        <Button variant="default" onClick={() => exportAs('csv')}>
          Export CSV
        </Button>
        <Button variant="default" onClick={() => exportAs('jsonl')}>
          Export JSONL
        </Button>
      </PageHeader>
      {manager && <ContentLoggingCard state={logging} />}
      <GenerationFilters key={filters.toString()} initial={filters} onApply={apply} />
      {exportError && <ErrorNote error={exportError} />}
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty={filters.size ? 'No generation matches these filters.' : 'No generations yet: requests appear here within seconds.'}
        rowKey={(generation) => generation.id}
        rowTestId="generation-row"
        minWidth={640}
        highlightOnHover
        columns={[
          {
            header: 'Time',
            cell: (generation) => (
              <Anchor
                component="button"
                type="button"
                onClick={() => open(generation.id)}
                title="Show the details"
                data-generation-id={generation.id}
              >
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
            // The finish reason; none on a stream that broke before it ended (a failed generation).
            cell: (generation) =>
              generation.cancelled || generation.finish_reason ? (
                <Badge color={generation.cancelled ? 'orange.9' : 'teal.9'}>
                  {generation.cancelled ? 'cancelled' : generation.finish_reason}
                </Badge>
              ) : (
                '—'
              ),
          },
        ]}
        footer={(page) => pages.pager(page.next_cursor)}
      />
      <Drawer opened={selected !== null} onClose={() => open(null)} position="right" size="lg" title="Generation">
        {selected && <GenerationDetail id={selected} loggingOff={logging.data ? !logging.data.data.enabled : undefined} />}
      </Drawer>
    </>
  );
}
