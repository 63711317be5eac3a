import { Badge, Button, Code, Group, Progress, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { api, download } from '../api';
import { ConfirmButton } from '../confirm-button';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { useCursorPages } from '../list-controls';
import { ErrorNote, PageHeader, useLoad, useWrite } from '../ui';
import type { Batch, BatchPage } from './shapes';

const PAGE_SIZE = 20;
/** How often the list is read again while a batch shown has not ended. */
const POLL_MS = 3000;
const FINAL = ['completed', 'failed', 'expired', 'cancelled'];
const ended = (batch: Batch) => FINAL.includes(batch.status);
const failedBatch = (batch: Batch) => batch.status === 'failed' || batch.status === 'expired';

export function BatchesPage() {
  const pages = useCursorPages();
  const query = `limit=${PAGE_SIZE}${pages.cursor ? `&after=${pages.cursor}` : ''}`;
  const state = useLoad(() => api<BatchPage>(`/v1/batches?${query}`), query);
  const { error, act } = useWrite(state.reload);
  // Progress moves by itself: read again while any batch shown runs, and stop once all have ended.
  const running = state.data?.data.some((batch) => !ended(batch)) ?? false;
  useEffect(() => {
    if (!running || state.loading) return;
    const timer = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, state.loading, state.data]);
  return (
    <>
      <PageHeader title="Batches" docs="GET /v1/batches, POST /v1/batches/{id}/cancel, GET /v1/batches/{id}/results" />
      {error && <ErrorNote error={error} />}
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No batches yet: they appear here once submitted with POST /v1/batches."
        rowKey={(batch) => batch.id}
        rowTestId="batch-row"
        minWidth={960}
        columns={[
          { header: 'Batch', cell: (batch) => <Code fz="xs">{batch.id}</Code> },
          { header: 'Created', cell: (batch) => formatTime(batch.created_at) },
          { header: 'Model', cell: (batch) => batch.model },
          { header: 'Status', td: { miw: 130 }, cell: (batch) => <BatchStatus batch={batch} /> },
          { header: 'Progress', td: { miw: 160 }, cell: (batch) => <BatchProgress batch={batch} /> },
          {
            header: 'Actions',
            cell: (batch) => (
              <Group gap="xs" wrap="nowrap">
                <ResultsButton batch={batch} />
                {!ended(batch) && batch.status !== 'cancelling' && (
                  <ConfirmButton
                    variant="default"
                    label={`Cancel batch ${batch.id}`}
                    question="Cancel this batch? Lines not yet run are dropped; the results finished so far stay."
                    confirm="Cancel batch"
                    onConfirm={() => void act(() => api(`/v1/batches/${batch.id}/cancel`, { method: 'POST' }))}
                  >
                    Cancel
                  </ConfirmButton>
                )}
              </Group>
            ),
          },
        ]}
        footer={(page) => pages.pager(page.has_more ? page.last_id : null)}
      />
    </>
  );
}

function BatchStatus({ batch }: { batch: Batch }) {
  return (
    <>
      <Badge data-testid="batch-status" {...(failedBatch(batch) ? { variant: 'filled', color: 'red.9' } : { variant: 'light' })}>
        {batch.status}
      </Badge>
      {batch.error && (
        <Text size="xs" mt={4} data-testid="batch-error">
          {batch.error.message}
        </Text>
      )}
    </>
  );
}

/** Results exist once the batch has ended with a finished line (the API's output or error file). */
function ResultsButton({ batch }: { batch: Batch }) {
  const reason = !ended(batch)
    ? 'Ready once the batch has ended.'
    : batch.output_file_id || batch.error_file_id
      ? null
      : 'No results: no line finished, or they were deleted.';
  const button = (
    <Button
      size="xs"
      variant="default"
      disabled={reason !== null}
      aria-label={`Download results of batch ${batch.id}`}
      onClick={() => void download(`/v1/batches/${batch.id}/results`, `${batch.id}.jsonl`)}
    >
      Download
    </Button>
  );
  if (reason === null) return button;
  return (
    <Stack gap={2} align="flex-start">
      {button}
      <Text size="xs" maw={200} data-testid="batch-results-reason">
        {reason}
      </Text>
    </Stack>
  );
}

function BatchProgress({ batch }: { batch: Batch }) {
  const { total, completed, failed } = batch.request_counts;
  return (
    <>
      <Progress value={total ? ((completed + failed) / total) * 100 : 0} aria-label={`Batch ${batch.id} progress`} />
      <Text size="xs" data-testid="batch-progress">
        {completed} done, {failed} failed of {total}
      </Text>
    </>
  );
}
