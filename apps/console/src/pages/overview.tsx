import '@mantine/charts/styles.css';
import { AreaChart, BarChart, DonutChart } from '@mantine/charts';
import { Card, Group, SegmentedControl, SimpleGrid, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ApiError } from '../api';
import { dayOf, formatCount, formatCredits } from '../format';
import { ErrorNote, Loadable, PageHeader, useLoad } from '../ui';
import { canManage, useSession } from '../session';
import { BreakdownChart, ChartCard } from './overview-charts';
import type { ActivityItem, ApiKey, Generation, Page, WorkspaceMember } from './shapes';

interface Breakdown {
  name: string;
  Spend: number;
  Requests: number;
  Failed: number;
}

interface Totals {
  source: 'activity' | 'generations';
  rows: ActivityItem[];
}

type AnalyticsRow = Record<string, string | number | null>;

interface ErrorsOfType {
  name: string;
  Failed: number;
}

interface Breakdowns {
  byKey: Breakdown[];
  byMember: Breakdown[];
  byModel: Breakdown[];
  byErrorType: ErrorsOfType[];
}

/** By key, by member and by model (owners and admins); loaded apart so the totals and day charts do not wait for them. */
async function loadBreakdowns(days: number, user: { id: string; workspace_id: string }): Promise<Breakdowns> {
  // Keys and members are named as the keys list and the members list name them.
  const [keys, members] = await Promise.all([
    api<{ data: ApiKey[] }>('/v1/keys?include_disabled=true'),
    api<{ data: WorkspaceMember[] }>(`/v1/workspaces/${user.workspace_id}/members?limit=100`),
  ]);
  const keyNames = new Map(keys.data.map((key) => [key.hash, key.name]));
  const memberNames = new Map(members.data.map((member) => [member.user_id, member.name || member.email]));
  const [byKey, byMember, byModel, byErrorType] = await Promise.all([
    breakdown('api_key_id', days, (hash) => keyNames.get(hash) ?? `${hash.slice(0, 8)}…`),
    breakdown('user', days, (id) => (id === user.id ? 'you' : (memberNames.get(id) ?? `${id.slice(0, 8)}…`))),
    breakdown('model', days, (model) => model),
    errorsByType(days),
  ]);
  return { byKey, byMember, byModel, byErrorType };
}

/** The period up to now, in the whole seconds the analytics API takes. */
function period(days: number): { start: string; end: string } {
  const end = new Date();
  return {
    start: new Date(end.getTime() - days * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    end: end.toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

async function query(body: object): Promise<AnalyticsRow[]> {
  return (await api<{ data: { data: AnalyticsRow[] } }>('/v1/analytics/query', { method: 'POST', body })).data.data;
}

/** Failed requests of the period per canonical error type; a stream broken after its first byte has none. */
async function errorsByType(days: number): Promise<ErrorsOfType[]> {
  const rows = await query({ metrics: ['error_count'], dimensions: ['error_type'], time_range: period(days) });
  return rows
    .map((row) => ({ name: row.error_type === null ? 'stream broken' : String(row.error_type), Failed: Number(row.error_count ?? 0) }))
    .filter((row) => row.Failed > 0)
    .sort((a, b) => b.Failed - a.Failed || a.name.localeCompare(b.name));
}

/** Sums of the period by one dimension (`POST /v1/analytics/query`, hourly rollups). */
async function breakdown(dimension: 'api_key_id' | 'user' | 'model', days: number, label: (value: string) => string): Promise<Breakdown[]> {
  const rows = await query({
    metrics: ['usage', 'request_count', 'error_count'],
    dimensions: [dimension],
    time_range: period(days),
    group_limit: 12,
  });
  return rows.map((row) => ({
    name: label(String(row[dimension] ?? 'unknown')),
    Spend: Number(row.usage ?? 0),
    Requests: Number(row.request_count ?? 0),
    Failed: Number(row.error_count ?? 0),
  }));
}

const GENERATION_PAGES = 10;

/**
 * The activity API (`GET /v1/activity`, the SDK's `analytics.getUserActivity`) for owners and
 * admins; for a member (whose key may not read it) the same rows folded from their generations.
 */
async function loadActivity(days: number): Promise<Totals> {
  try {
    // Without a date the API answers completed UTC days only; today's rows are asked for apart.
    const today = new Date().toISOString().slice(0, 10);
    const [past, current] = await Promise.all([
      api<{ data: ActivityItem[] }>('/v1/activity'),
      api<{ data: ActivityItem[] }>(`/v1/activity?date=${today}`),
    ]);
    const since = dayOf(new Date(Date.now() - days * 86_400_000).toISOString());
    const rows = [...past.data.filter((row) => row.date !== today), ...current.data];
    return { source: 'activity', rows: rows.filter((row) => row.date >= since) };
  } catch (error) {
    // A member's key may not read activity (403): the overview folds the generations they may read.
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
  }
  const from = new Date(Date.now() - days * 86_400_000).toISOString();
  const generations: Generation[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < GENERATION_PAGES; page++) {
    const query: string = new URLSearchParams({ limit: '100', from, ...(cursor ? { cursor } : {}) }).toString();
    const answer: Page<Generation> = await api<Page<Generation>>(`/v1/generations?${query}`);
    generations.push(...answer.data);
    cursor = answer.next_cursor ?? null;
    if (!cursor) break;
  }
  const rows = new Map<string, ActivityItem>();
  for (const generation of generations) {
    const date = dayOf(generation.created_at);
    const id = `${date}|${generation.model}|${generation.provider_name ?? ''}`;
    const row = rows.get(id) ?? {
      date,
      model: generation.model,
      model_permaslug: generation.model,
      endpoint_id: '',
      provider_name: generation.provider_name ?? 'unknown',
      usage: 0,
      byok_usage_inference: 0,
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      reasoning_tokens: 0,
    };
    row.usage += generation.total_cost;
    row.requests += 1;
    row.prompt_tokens += generation.tokens_prompt ?? 0;
    row.completion_tokens += generation.tokens_completion ?? 0;
    row.reasoning_tokens += generation.native_tokens_reasoning ?? 0;
    rows.set(id, row);
  }
  return { source: 'generations', rows: [...rows.values()] };
}

function sumBy(rows: ActivityItem[], key: (row: ActivityItem) => string) {
  const sums = new Map<string, { usage: number; requests: number; prompt: number; completion: number; reasoning: number }>();
  for (const row of rows) {
    const sum = sums.get(key(row)) ?? { usage: 0, requests: 0, prompt: 0, completion: 0, reasoning: 0 };
    sum.usage += row.usage;
    sum.requests += row.requests;
    sum.prompt += row.prompt_tokens;
    sum.completion += row.completion_tokens;
    sum.reasoning += row.reasoning_tokens;
    sums.set(key(row), sum);
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b));
}

const sumFailed = (rows: ErrorsOfType[]) => rows.reduce((total, row) => total + row.Failed, 0);

const COLORS = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'lime.6', 'red.6', 'yellow.6'];

export function OverviewPage() {
  const [days, setDays] = useState('7');
  const session = useSession();
  const state = useLoad(() => loadActivity(Number(days)), days);
  const manager = canManage(session);
  const breakdowns = useLoad(() => (manager ? loadBreakdowns(Number(days), session.user) : Promise.resolve(null)), days);
  return (
    <>
      <PageHeader title="Overview" docs="GET /v1/activity, GET /v1/generations">
        <SegmentedControl
          aria-label="Period"
          value={days}
          onChange={setDays}
          data={[
            { label: '24 h', value: '1' },
            { label: '7 days', value: '7' },
            { label: '30 days', value: '30' },
          ]}
        />
      </PageHeader>
      <Loadable state={state} empty="No requests in this period yet." isEmpty={(data) => data.rows.length === 0}>
        {(data) => {
          const byDay = sumBy(data.rows, (row) => row.date).map(([date, sum]) => ({
            date,
            Spend: sum.usage,
            Requests: sum.requests,
            Prompt: sum.prompt,
            Completion: sum.completion,
            Reasoning: sum.reasoning,
          }));
          const byModel = sumBy(data.rows, (row) => row.model).map(([name, sum], index) => ({
            name,
            value: sum.usage,
            color: COLORS[index % COLORS.length]!,
          }));
          const byProvider = sumBy(data.rows, (row) => row.provider_name).map(([provider, sum]) => ({ provider, Requests: sum.requests }));
          const total = data.rows.reduce((sum, row) => sum + row.usage, 0);
          const requests = data.rows.reduce((sum, row) => sum + row.requests, 0);
          return (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }} mb="md">
                <Card withBorder>
                  <Text size="sm" c="dimmed">
                    Spend
                  </Text>
                  <Text size="xl" fw={700} data-testid="overview-total-spend">
                    {formatCredits(total)}
                  </Text>
                </Card>
                <Card withBorder>
                  <Text size="sm" c="dimmed">
                    Requests
                  </Text>
                  <Text size="xl" fw={700} data-testid="overview-total-requests">
                    {formatCount(requests)}
                  </Text>
                </Card>
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, lg: 2 }}>
                <ChartCard title="Spend per day">
                  <BarChart
                    h={220}
                    data={byDay}
                    dataKey="date"
                    series={[{ name: 'Spend', color: 'indigo.6' }]}
                    valueFormatter={formatCredits}
                  />
                </ChartCard>
                <ChartCard title="Requests per day">
                  <AreaChart h={220} data={byDay} dataKey="date" series={[{ name: 'Requests', color: 'teal.6' }]} curveType="linear" />
                </ChartCard>
                <ChartCard title="Spend by model">
                  <Group justify="center">
                    <DonutChart
                      data={byModel}
                      size={180}
                      thickness={28}
                      valueFormatter={formatCredits}
                      withTooltip
                      withLabelsLine={false}
                    />
                  </Group>
                  <Text size="xs" c="dimmed" ta="center">
                    {byModel.map((slice) => `${slice.name}: ${formatCredits(slice.value)}`).join(' · ')}
                  </Text>
                </ChartCard>
                <ChartCard title="Tokens by kind">
                  <BarChart
                    h={220}
                    data={byDay}
                    dataKey="date"
                    type="stacked"
                    withLegend
                    series={[
                      { name: 'Prompt', color: 'indigo.6' },
                      { name: 'Completion', color: 'teal.6' },
                      { name: 'Reasoning', color: 'orange.6' },
                    ]}
                  />
                </ChartCard>
                <ChartCard title="Requests by provider">
                  <BarChart h={220} data={byProvider} dataKey="provider" series={[{ name: 'Requests', color: 'grape.6' }]} />
                </ChartCard>
                {breakdowns.error && <ErrorNote error={breakdowns.error} />}
                {breakdowns.data && (
                  <>
                    <BreakdownChart
                      title="Spend by key"
                      data={breakdowns.data.byKey}
                      series={[{ name: 'Spend', color: 'cyan.6' }]}
                      valueFormatter={formatCredits}
                    />
                    <BreakdownChart
                      title="Spend by member"
                      data={breakdowns.data.byMember}
                      series={[{ name: 'Spend', color: 'lime.6' }]}
                      valueFormatter={formatCredits}
                    />
                    <BreakdownChart
                      title="Requests and failures by model"
                      data={breakdowns.data.byModel}
                      series={[
                        { name: 'Requests', color: 'teal.6' },
                        { name: 'Failed', color: 'red.6' },
                      ]}
                    />
                    <BreakdownChart
                      title="Errors by type"
                      data={breakdowns.data.byErrorType}
                      series={[{ name: 'Failed', color: 'red.6' }]}
                      empty="No failed requests in this period"
                      caption={
                        breakdowns.data.byErrorType.length > 0 && (
                          <Text size="xs" c="dimmed" ta="center">
                            Failed requests:{' '}
                            <span data-testid="overview-errors-total">{formatCount(sumFailed(breakdowns.data.byErrorType))}</span>
                          </Text>
                        )
                      }
                    />
                  </>
                )}
              </SimpleGrid>
              <Text size="xs" c="dimmed" mt="sm">
                {data.source === 'activity'
                  ? 'From the activity API.'
                  : 'From the generations list (activity is for owners and admins); days in your time zone.'}
              </Text>
            </>
          );
        }}
      </Loadable>
    </>
  );
}
