import type { InferenceEnv } from '../../env.js';
import type { UpstreamClient } from '../../upstream/upstream-client.js';
import { AzureOpenAiAdapter } from '../azure/azure.adapter.js';
import { EntraAccessTokens } from '../azure/entra-access-tokens.js';
import { BedrockClients } from '../bedrock/bedrock-clients.js';
import { BedrockAdapter } from '../bedrock/bedrock.adapter.js';
import type { ConformanceSubject } from './conformance-run.js';
import { endpointOf, withDirectives } from './conformance-subjects.js';

/** The simulator's accounts (its exports, passed in by the spec: inference code does not depend on the simulator). */
export interface SimulatorAccounts {
  awsAccessKeyId: string;
  awsSecretAccessKey: string;
  azureApiKey: string;
  entra: { tenantId: string; clientId: string; clientSecret: string };
}

const CLAUDE_ON_BEDROCK = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** Azure's differences from OpenAI's table entries: its content filter's directives and its refusal of a filtered prompt. */
const AZURE: Pick<ConformanceSubject, 'lacks' | 'faults' | 'failures' | 'plainPromptTokens' | 'streamError'> = {
  lacks: {
    'cache-write': 'Azure OpenAI, like OpenAI, reports no cache writes (prompt caching is automatic)',
    'filter-refusal': "Azure's filtered answer carries its filter results, not a refusal text",
  },
  faults: { 'answer-filter': 'content-filter=output', 'prompt-filter': 'content-filter=prompt', overloaded: 'status=503' },
  failures: {
    'prompt-filter': { status: 400, errorType: 'content_policy_violation', retryable: false },
    // Azure has no overloaded status of its own: a busy deployment answers 429 or 503.
    overloaded: { status: 503, errorType: 'provider_unavailable', retryable: true },
  },
  plainPromptTokens: 14,
  streamError: { status: 502, errorType: 'provider_unavailable' },
};

/**
 * AWS Bedrock (Converse through the AWS SDK, SigV4-signed with the simulated account's keys,
 * a guardrail on every call) and Azure OpenAI twice: a deployment by name with an `api-key`,
 * and the v1 API with a Microsoft Entra ID app whose token comes from the simulator's tenant
 * over TLS (`simulator.tlsUrl`, a CA the client trusts through UPSTREAM_EXTRA_CA_FILE).
 * `close` releases the Bedrock clients.
 */
export function cloudSubjects(
  simulator: { url: string; tlsUrl?: string },
  accounts: SimulatorAccounts,
  upstream: UpstreamClient,
  env: InferenceEnv,
): { subjects: ConformanceSubject[]; close(): void } {
  const clients = new BedrockClients(env);
  const tokens = new EntraAccessTokens(env);
  const azure = new AzureOpenAiAdapter(upstream, tokens);
  const keys = (secretAccessKey: string) => JSON.stringify({ accessKeyId: accounts.awsAccessKeyId, secretAccessKey });
  if (!simulator.tlsUrl) throw new Error('the Entra ID subject needs the simulator on TLS');
  const subjects: ConformanceSubject[] = [
    {
      name: 'bedrock',
      adapter: new BedrockAdapter(clients),
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-bedrock',
            name: 'AWS Bedrock',
            format: 'bedrock',
            baseUrl: `${simulator.url}/bedrock`,
            apiKey: keys(options?.badCredential ? 'not/the/secret/key/00000000000000000000' : accounts.awsSecretAccessKey),
            region: 'us-east-1',
            guardrail: { identifier: 'sim-guardrail', version: '1' },
          },
          withDirectives(CLAUDE_ON_BEDROCK, directives),
        ),
      lacks: {
        'reasoning-tokens': "Converse's usage counts thinking inside outputTokens, with no count of its own",
        'filter-refusal': "a guardrail's answer is its blocked message as content, as Bedrock sends it",
      },
      faults: {
        quota: 'status=400;bedrock-error=ServiceQuotaExceededException',
        overloaded: 'status=503',
        timeout: 'status=408',
      },
      failures: {
        // Bedrock has no overloaded error: a busy model is a ThrottlingException (the rate-limit case) or a 503.
        overloaded: { status: 503, errorType: 'provider_unavailable', retryable: true },
      },
      plainPromptTokens: 11,
      streamError: { status: 502, errorType: 'provider_unavailable' },
    },
    {
      name: 'azure',
      adapter: azure,
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-azure',
            name: 'Azure OpenAI',
            format: 'azure',
            baseUrl: `${simulator.url}/azure`,
            apiKey: options?.badCredential ? 'not-the-azure-key' : accounts.azureApiKey,
            apiVersion: '2024-10-21',
          },
          withDirectives('gpt-4o-mini', directives),
        ),
      ...AZURE,
    },
    {
      name: 'azure-entra',
      adapter: azure,
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-azure-entra',
            name: 'Azure OpenAI (Entra ID)',
            format: 'azure',
            baseUrl: `${simulator.url}/azure`,
            apiKey: options?.badCredential ? 'not~the~client~secret' : accounts.entra.clientSecret,
            entra: { tenantId: accounts.entra.tenantId, clientId: accounts.entra.clientId, authorityHost: simulator.tlsUrl },
          },
          withDirectives('gpt-4o-mini', directives),
        ),
      ...AZURE,
    },
  ];
  return { subjects, close: () => clients.onModuleDestroy() };
}
