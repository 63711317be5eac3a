import { Alert, Badge, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { api, ApiError } from '../api';
import { RowsTable } from '../data-table';
import { formatCount, formatCredits, formatMs, formatTime } from '../format';
import { ErrorNote, Loadable, useLoad } from '../ui';
import type { Generation, GenerationContent } from './shapes';

/**
 * `GET /v1/generation?id=` in the drawer: timings, each provider call with its status and
 * latency, the cost as the API breaks it down, and `GET /v1/generation/content` when the
 * workspace logged it. `loggingOff`: the workspace's setting, when the viewer may read it.
 */
export function GenerationDetail({ id, loggingOff }: { id: string; loggingOff: boolean | undefined }) {
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
          <Detail label="Streamed" value={data.streamed === null ? '—' : data.streamed ? 'yes' : 'no'} />
          <Detail label="Finish reason" value={data.cancelled ? 'cancelled' : (data.finish_reason ?? '—')} />
          <Section title="Timings" />
          <Detail label="Latency (first byte)" value={formatMs(data.latency)} testId="detail-latency" />
          <Detail label="Generation time" value={formatMs(data.generation_time)} />
          {data.moderation_latency !== null && <Detail label="Moderation" value={formatMs(data.moderation_latency)} />}
          <Section title="Cost" />
          <Detail label="Total cost" value={formatCredits(data.total_cost)} testId="detail-total-cost" />
          <Detail label="Upstream cost" value={formatCredits(data.upstream_inference_cost)} />
          <Detail label="Cache discount" value={formatCredits(data.cache_discount)} />
          <Detail label="BYOK (paid with your provider key)" value={data.is_byok ? 'yes' : 'no'} />
          {data.response_cache_source_id && <Detail label="Answered from the response cache of" value={data.response_cache_source_id} />}
          <Detail label="Price version" value={data.price_version === null ? '—' : String(data.price_version)} />
          <Section title="Tokens" />
          <Detail label="Prompt" value={formatCount(data.tokens_prompt)} />
          <Detail label="Completion" value={formatCount(data.tokens_completion)} />
          <Detail label="Reasoning" value={formatCount(data.native_tokens_reasoning)} />
          <Detail label="Cached" value={formatCount(data.native_tokens_cached)} />
          <Section title="Provider attempts" />
          <Attempts generation={data} />
          <Section title="Content" />
          <Content id={data.id} loggingOff={loggingOff} />
        </Stack>
      )}
    </Loadable>
  );
}

function Attempts({ generation }: { generation: Generation }) {
  const attempts = generation.provider_responses ?? [];
  if (attempts.length === 0) return <Text c="dimmed">None recorded.</Text>;
  return (
    <RowsTable
      rows={attempts.map((attempt, index) => ({ ...attempt, index }))}
      rowKey={(attempt) => String(attempt.index)}
      rowTestId="attempt-row"
      columns={[
        { header: '#', cell: (attempt) => attempt.index + 1 },
        { header: 'Provider', cell: (attempt) => attempt.provider_name },
        { header: 'Model', cell: (attempt) => attempt.model_permaslug },
        {
          header: 'Status',
          testId: 'attempt-status',
          cell: (attempt) => <Badge color={attempt.status === 200 ? 'teal.9' : 'red.9'}>{attempt.status ?? 'no answer'}</Badge>,
        },
        { header: 'Latency', testId: 'attempt-latency', cell: (attempt) => formatMs(attempt.latency) },
      ]}
    />
  );
}

/** The stored prompt and answer; the API's 404 says why there is none (logging off, or expired). */
function Content({ id, loggingOff }: { id: string; loggingOff: boolean | undefined }) {
  const state = useLoad(() => api<{ data: GenerationContent }>(`/v1/generation/content?id=${encodeURIComponent(id)}`), id);
  if (state.error instanceof ApiError && state.error.status === 404) {
    return (
      <Alert color="gray" title={loggingOff ? 'Content logging is off for this workspace' : 'No content stored'} data-testid="content-none">
        {state.error.message}
      </Alert>
    );
  }
  if (state.error) return <ErrorNote error={state.error} />;
  return (
    <Loadable state={state} empty="">
      {({ data }) => (
        <Stack gap="xs">
          {'prompt' in data.input ? (
            <Said who="prompt" text={data.input.prompt} />
          ) : (
            data.input.messages.map((message, index) => <Said key={index} {...asMessage(message)} />)
          )}
          {data.output.reasoning && <Said who="reasoning" text={data.output.reasoning} />}
          <Said who="answer" text={data.output.completion ?? '(no text)'} testId="content-answer" />
        </Stack>
      )}
    </Loadable>
  );
}

/** A stored message as role and text: text parts joined, other parts named by their type. */
function asMessage(message: unknown): { who: string; text: string } {
  const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
  const parts = Array.isArray(content) ? (content as { type?: string; text?: string }[]) : null;
  const text =
    typeof content === 'string'
      ? content
      : parts
        ? parts.map((part) => (typeof part.text === 'string' ? part.text : `[${part.type ?? 'part'}]`)).join('\n')
        : JSON.stringify(content ?? null);
  return { who: typeof role === 'string' ? role : 'message', text };
}

function Said({ who, text, testId }: { who: string; text: string; testId?: string }) {
  return (
    <Paper withBorder p="xs" data-testid={testId ?? 'content-message'}>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase" mb={4}>
        {who}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {text}
      </Text>
    </Paper>
  );
}

function Section({ title }: { title: string }) {
  return (
    <Title order={3} size="h5" mt="sm">
      {title}
    </Title>
  );
}

function Detail({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Group>
  );
}
