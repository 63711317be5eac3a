import { beforeAll, describe, expect, it } from 'vitest';
import { simulatorUpstream } from '../../testing/spec-helpers.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { CONFORMANCE_CASES, PLAIN_MESSAGES } from './conformance-cases.js';
import { runBody, type ConformanceSubject, type Mode } from './conformance-run.js';
import { HOST_SUBJECT_NAMES, hostSubjects } from './conformance-host-subjects.js';
import { conformanceSubjects } from './conformance-subjects.js';

const SUBJECTS = ['gemini', 'vertex', 'openai', 'anthropic', ...HOST_SUBJECT_NAMES];

/** The one conformance table, run on every adapter against its strict simulator over real HTTP. */
describe('provider conformance', () => {
  const sim = simulatorUpstream({ UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '2000' });
  const subjects = new Map<string, ConformanceSubject>();

  beforeAll(async () => {
    for (const subject of await conformanceSubjects(sim.simulator.url, sim.upstream)) subjects.set(subject.name, subject);
    for (const subject of hostSubjects(sim.simulator.url, sim.upstream)) subjects.set(subject.name, subject);
  });

  describe('Vertex AI with a workspace (BYOK) service account', () => {
    it('answers with the JSON as the key, and refuses a path, which would read a file of the gateway host', async () => {
      const vertex = subjects.get('vertex')!;
      const endpoint = vertex.endpoint('');
      const account = endpoint.provider.apiKey;
      const body = { model: 'conformance', messages: PLAIN_MESSAGES };
      const answer = await vertex.adapter.complete({ ...endpoint, provider: { ...endpoint.provider, apiKey: '' } }, body, {
        apiKey: account,
      });
      expect(answer.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there/);
      await expect(vertex.adapter.complete(endpoint, body, { apiKey: '/etc/hostname' })).rejects.toThrow(/JSON, not a path/);
    });
  });

  describe.each(SUBJECTS)('%s', (name) => {
    for (const testCase of CONFORMANCE_CASES) {
      for (const mode of testCase.modes ?? (['complete', 'stream'] as Mode[])) {
        it(`${testCase.name} (${mode})`, async (context) => {
          const subject = subjects.get(name)!;
          if (testCase.needs && !subject.capabilities.has(testCase.needs)) context.skip(`${name}'s simulator has no ${testCase.needs}`);
          const endpoint = subject.endpoint(testCase.directives ?? '', { badCredential: testCase.badCredential });
          const body = { model: 'conformance', messages: PLAIN_MESSAGES, ...testCase.body };
          const result = await runBody(subject, endpoint, body, mode);
          if (testCase.expect.kind === 'answer') {
            if (result instanceof UpstreamFailure)
              throw new Error(`expected an answer, got ${result.gatewayError.status} ${result.message}`);
            testCase.expect.check(result, subject);
            return;
          }
          expect(result, 'a failure').toBeInstanceOf(UpstreamFailure);
          const failure = result as UpstreamFailure;
          const wanted = testCase.expect.failure(subject);
          expect({ status: failure.gatewayError.status, errorType: failure.gatewayError.errorType }).toEqual({
            status: wanted.status,
            errorType: wanted.errorType,
          });
          if (wanted.retryable !== undefined) expect(failure.retryable, 'retryable').toBe(wanted.retryable);
          if (wanted.retryAfter !== undefined) expect(failure.gatewayError.metadata).toMatchObject({ retry_after: wanted.retryAfter });
        });
      }
    }
  });
});
