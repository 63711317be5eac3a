import { Badge, Button, Progress, Text } from '@mantine/core';
import { api, download } from '../api';
import { DataTable } from '../data-table';
import { formatTime } from '../format';
import { PageHeader, useLoad } from '../ui';
import type { Batch } from './shapes';

export function BatchesPage() {
  const state = useLoad(() => api<{ data: Batch[] }>('/v1/batches'));
  return (
    <>
      <PageHeader title="Batches" docs="GET /v1/batches, GET /v1/batches/{id}/results" />
      <DataTable
        state={state}
        rows={(page) => page.data}
        empty="No batches yet."
        rowKey={(batch) => batch.id}
        minWidth={640}
        columns={[
          { header: 'Created', cell: (batch) => formatTime(batch.created_at) },
          { header: 'Model', cell: (batch) => batch.model },
          { header: 'Status', cell: (batch) => <Badge variant="light">{batch.status}</Badge> },
          { header: 'Progress', td: { miw: 160 }, cell: (batch) => <BatchProgress batch={batch} /> },
          {
            header: 'Results',
            cell: (batch) => (
              <Button size="xs" variant="default" onClick={() => void download(`/v1/batches/${batch.id}/results`, `${batch.id}.jsonl`)}>
                Download
              </Button>
            ),
          },
        ]}
      />
    </>
  );
}

function BatchProgress({ batch }: { batch: Batch }) {
  const { total, completed, failed } = batch.request_counts;
  return (
    <>
      <Progress value={total ? ((completed + failed) / total) * 100 : 0} aria-label={`Batch ${batch.id} progress`} />
      <Text size="xs">
        {completed} done, {failed} failed of {total}
      </Text>
    </>
  );
}
