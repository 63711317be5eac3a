import { Badge, Button, Progress, Table, Text } from '@mantine/core';
import { api, download } from '../api';
import { formatTime } from '../format';
import { Loadable, PageHeader, useLoad } from '../ui';
import type { Batch } from './shapes';

export function BatchesPage() {
  const state = useLoad(() => api<{ data: Batch[] }>('/v1/batches'));
  return (
    <>
      <PageHeader title="Batches" docs="GET /v1/batches, GET /v1/batches/{id}/results" />
      <Loadable state={state} empty="No batches yet." isEmpty={(page) => page.data.length === 0}>
        {(page) => (
          <Table.ScrollContainer minWidth={640}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Model</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Progress</Table.Th>
                  <Table.Th>Results</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {page.data.map((batch) => {
                  const { total, completed, failed } = batch.request_counts;
                  const done = total ? ((completed + failed) / total) * 100 : 0;
                  return (
                    <Table.Tr key={batch.id}>
                      <Table.Td>{formatTime(batch.created_at)}</Table.Td>
                      <Table.Td>{batch.model}</Table.Td>
                      <Table.Td>
                        <Badge variant="light">{batch.status}</Badge>
                      </Table.Td>
                      <Table.Td miw={160}>
                        <Progress value={done} aria-label={`Batch ${batch.id} progress`} />
                        <Text size="xs">
                          {completed} done, {failed} failed of {total}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Button
                          size="xs"
                          variant="default"
                          onClick={() => void download(`/v1/batches/${batch.id}/results`, `${batch.id}.jsonl`)}
                        >
                          Download
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Loadable>
    </>
  );
}
