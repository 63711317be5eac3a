import {
  SIM_AWS_ACCESS_KEY_ID,
  SIM_AWS_SECRET_ACCESS_KEY,
  SIM_AZURE_API_KEY,
  SIM_ENTRA_CLIENT_ID,
  SIM_ENTRA_CLIENT_SECRET,
  SIM_ENTRA_TENANT_ID,
} from '@gw/provider-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorUpstream } from '../../testing/spec-helpers.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { CONFORMANCE_CASES, PLAIN_MESSAGES, type Expectation } from './conformance-cases.js';
import { DEFAULT_FAULTS, runBody, type ConformanceSubject, type Mode } from './conformance-run.js';
import { HOST_SUBJECT_NAMES, hostSubjects } from './conformance-host-subjects.js';
import { cloudSubjects } from './conformance-cloud-subjects.js';
import { conformanceSubjects } from './conformance-subjects.js';

const SUBJECTS = ['gemini', 'vertex', 'openai', 'anthropic', 'bedrock', 'azure', 'azure-entra', ...HOST_SUBJECT_NAMES];

/** The one conformance table, run on every adapter against its strict simulator over real HTTP. */
describe('provider conformance', () => {
  const sim = simulatorUpstream({ UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '2000' }, { tls: true });
  const subjects = new Map<string, ConformanceSubject>();
  let closeCloud = () => {};

  beforeAll(async () => {
    const accounts = {
      awsAccessKeyId: SIM_AWS_ACCESS_KEY_ID,
      awsSecretAccessKey: SIM_AWS_SECRET_ACCESS_KEY,
      azureApiKey: SIM_AZURE_API_KEY,
      entra: { tenantId: SIM_ENTRA_TENANT_ID, clientId: SIM_ENTRA_CLIENT_ID, clientSecret: SIM_ENTRA_CLIENT_SECRET },
    };
    const cloud = cloudSubjects(sim.simulator, accounts, sim.upstream, sim.env);
    closeCloud = cloud.close;
    for (const subject of [
      ...(await conformanceSubjects(sim.simulator.url, sim.upstream)),
      ...cloud.subjects,
      ...hostSubjects(sim.simulator.url, sim.upstream),
    ])
      subjects.set(subject.name, subject);
  });
  afterAll(() => closeCloud());

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
          const lacking = testCase.needs ?? testCase.fault;
          const reason = lacking === undefined ? undefined : subject.lacks[lacking];
          if (reason !== undefined) {
            // Kept in the JSON report too, where the capability table (tools/test-runner/src/capability-table.ts) reads it.
            Object.assign(context.task.meta, { lacks: reason });
            context.skip(`${name}: ${reason}`);
          }
          const fault = testCase.fault === undefined ? undefined : (subject.faults?.[testCase.fault] ?? DEFAULT_FAULTS[testCase.fault]);
          const directives = [fault, testCase.directives].filter(Boolean).join(';');
          const endpoint = subject.endpoint(directives, { badCredential: testCase.badCredential });
          const body = { model: 'conformance', messages: PLAIN_MESSAGES, ...testCase.body };
          const seen = { events: 0 };
          const result = await runBody(subject, endpoint, body, mode, { cancelAfter: testCase.cancelAfter, seen });
          const declared = testCase.fault === undefined ? undefined : subject.failures?.[testCase.fault];
          if (testCase.expect.kind === 'cancelled') {
            expect(result, 'a failure').toBeInstanceOf(UpstreamFailure);
            expect((result as UpstreamFailure).kind).toBe('aborted');
            expect(seen.events, 'events before the end').toBeLessThan(5);
            return;
          }
          if (testCase.expect.kind === 'answer' && declared === undefined) {
            if (result instanceof UpstreamFailure)
              throw new Error(`expected an answer, got ${result.gatewayError.status} ${result.message}`);
            testCase.expect.check(result, subject);
            return;
          }
          expect(result, 'a failure').toBeInstanceOf(UpstreamFailure);
          const failure = result as UpstreamFailure;
          const wanted = declared ?? (testCase.expect as Extract<Expectation, { kind: 'failure' }>).failure(subject);
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
