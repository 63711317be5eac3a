import type { IsolatedStack } from '@gw/stack';
import { run, type RunFigures, type Target } from './measure.ts';

/** What the 10,000-line batch scenario measured (issue 13). */
export interface BatchScenarioResult {
  lines: number;
  /** Seconds to stream the body to POST /v1/batches (202). */
  uploadSeconds: number;
  /** Seconds from the 202 to the batch's terminal status, and lines per second over them. */
  runSeconds: number;
  linesPerSecond: number;
  status: string;
  requestCounts: { total: number; completed: number; failed: number };
  /** Interactive chat at 1 connection with no batch running, and while the batch runs. */
  interactive: { idle: LatencyFigures; duringBatch: LatencyFigures };
}

interface LatencyFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

const figures = (run: RunFigures): LatencyFigures => ({
  requestsPerSecond: run.requestsPerSecond,
  p50Ms: run.latencyMs.p50,
  p99Ms: run.latencyMs.p99,
  non2xx: run.non2xx + run.errors,
});

/**
 * A batch of `lines` chat lines run by the gateway (custom_ids with a space: the providers'
 * batch APIs refuse them, so the batch service runs every line through inference itself), and
 * interactive chat latency at one connection measured before and while it runs: what a batch
 * costs live traffic.
 */
export async function batchScenario(
  stack: IsolatedStack,
  interactive: Target,
  lines: number,
  seconds: number,
  signal: AbortSignal,
): Promise<BatchScenarioResult> {
  const idle = await run(interactive, 1, seconds, signal);
  const body = JSON.stringify({
    endpoint: '/v1/chat/completions',
    model: 'sim/gpt-4o-mini',
    completion_window: '24h',
    requests: Array.from({ length: lines }, (_, n) => ({
      custom_id: `line ${n}`,
      body: { messages: [{ role: 'user', content: `Batch line ${n}` }] },
    })),
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` };
  const uploadStart = performance.now();
  const created = await fetch(`${stack.baseUrl}/batches`, { method: 'POST', headers, body, signal });
  const createdText = await created.text();
  if (created.status !== 202) throw new Error(`POST /v1/batches answered ${created.status}: ${createdText.slice(0, 500)}`);
  const uploadSeconds = (performance.now() - uploadStart) / 1000;
  const { id } = JSON.parse(createdText) as { id: string };
  const runStart = performance.now();
  const during = await run(interactive, 1, seconds, signal);
  let batch: { status: string; request_counts: BatchScenarioResult['requestCounts'] };
  for (;;) {
    signal.throwIfAborted();
    const response = await fetch(`${stack.baseUrl}/batches?limit=1`, { headers, signal });
    const list = (await response.json()) as { data: Array<typeof batch & { id: string }> };
    batch = list.data.find((item) => item.id === id) ?? batch!;
    if (batch && ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const runSeconds = (performance.now() - runStart) / 1000;
  return {
    lines,
    uploadSeconds: Number(uploadSeconds.toFixed(2)),
    runSeconds: Number(runSeconds.toFixed(2)),
    linesPerSecond: Number((lines / runSeconds).toFixed(1)),
    status: batch.status,
    requestCounts: batch.request_counts,
    interactive: { idle: figures(idle), duringBatch: figures(during) },
  };
}
