import { Card, Progress, SimpleGrid, Text } from '@mantine/core';
import { api } from '../api';
import { formatCredits } from '../format';
import { Loadable, PageHeader, useLoad } from '../ui';

export function CreditsPage() {
  const state = useLoad(() => api<{ data: { total_credits: number; total_usage: number } }>('/v1/credits'));
  return (
    <>
      <PageHeader title="Credits" docs="GET /v1/credits" />
      <Loadable state={state} empty="">
        {({ data }) => {
          const left = data.total_credits - data.total_usage;
          return (
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  Balance
                </Text>
                <Text size="xl" fw={700}>
                  {formatCredits(left)}
                </Text>
                <Progress
                  mt="sm"
                  value={data.total_credits ? (left / data.total_credits) * 100 : 0}
                  aria-label="Share of credits left"
                  color={left <= 0 ? 'red' : 'indigo'}
                />
              </Card>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  Credits added
                </Text>
                <Text size="xl" fw={700}>
                  {formatCredits(data.total_credits)}
                </Text>
              </Card>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  Used
                </Text>
                <Text size="xl" fw={700}>
                  {formatCredits(data.total_usage)}
                </Text>
              </Card>
            </SimpleGrid>
          );
        }}
      </Loadable>
    </>
  );
}
