import { generateKeyPairSync } from 'node:crypto';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { UpstreamClient } from '../../upstream/upstream-client.js';
import { AnthropicAdapter } from '../anthropic/anthropic.adapter.js';
import { GeminiAdapter, VertexAdapter } from '../gemini/gemini.adapter.js';
import { GoogleAccessTokens } from '../gemini/google-access-tokens.js';
import { OpenAiAdapter } from '../openai/openai.adapter.js';
import { CONFORMANCE_PRICING } from './conformance-cases.js';
import type { ConformanceSubject } from './conformance-run.js';

const GEMINI_LACKS: ConformanceSubject['lacks'] = {
  'streamed-tool-args':
    'the Gemini API streams each functionCall whole; its reference on streamFunctionCallArguments and partialArgs: "This field is not supported in Gemini API."',
  'cache-write': "Gemini's usage has no cache-write count (context caches are created apart, by cachedContents)",
};
/** Vertex AI streams a call's arguments as partialArgs by JSON path when asked (streamFunctionCallArguments). */
const VERTEX_LACKS: ConformanceSubject['lacks'] = { 'cache-write': GEMINI_LACKS['cache-write']! };
/** OpenAI's chat API: a content_filter finish reason is in its reference, with no word on when it comes or what the answer holds. */
const NO_FILTER = {
  'answer-filter': 'OpenAI documents finish_reason content_filter but not when or how it is sent, so it is not simulated',
  'prompt-filter': 'the chat API has no content filter of its own that refuses a prompt',
};

const CHAT_PARAMETERS = ['temperature', 'top_p', 'max_tokens', 'stop', 'tools', 'tool_choice', 'response_format', 'reasoning'];

export function endpointOf(provider: RoutableEndpoint['provider'], upstreamModel: string): RoutableEndpoint {
  return { provider, upstreamModel, pricing: CONFORMANCE_PRICING, supportedParameters: new Set(CHAT_PARAMETERS) };
}

export const withDirectives = (model: string, directives: string) => (directives ? `${model};${directives}` : model);

/**
 * The Gemini, Vertex AI, OpenAI and Anthropic adapters as the conformance table runs them, each
 * on its simulator at `simulatorUrl` (the cloud ones are in conformance-cloud-subjects.ts, the
 * OpenAI-compatible hosts in conformance-host-subjects.ts). To add an adapter: a subject with
 * its endpoint, how its credential is refused, and what it lacks and why.
 */
export async function conformanceSubjects(simulatorUrl: string, upstream: UpstreamClient): Promise<ConformanceSubject[]> {
  const account = (await (await fetch(`${simulatorUrl}/sim/google/service-account`)).json()) as Record<string, string>;
  // The same account name with a key Google never saw: the token endpoint refuses its assertion.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = { ...account, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  const tokenUrl = `${simulatorUrl}/google/oauth2/token`;
  return [
    {
      name: 'gemini',
      adapter: new GeminiAdapter(upstream),
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-gemini',
            name: 'Gemini',
            format: 'gemini',
            baseUrl: `${simulatorUrl}/v1beta`,
            apiKey: options?.badCredential ? 'sim-gemini-invalid' : 'sim-gemini',
          },
          withDirectives('gemini-2.5-flash', directives),
        ),
      lacks: GEMINI_LACKS,
      plainPromptTokens: 11,
      streamError: { status: 503, errorType: 'provider_overloaded' },
    },
    {
      name: 'vertex',
      adapter: new VertexAdapter(upstream, new GoogleAccessTokens()),
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-vertex',
            name: 'Vertex AI',
            format: 'vertex',
            baseUrl: `${simulatorUrl}/vertex/v1`,
            apiKey: JSON.stringify(options?.badCredential ? stranger : account),
            vertex: { location: 'us-central1', tokenUrl },
          },
          withDirectives('gemini-2.5-flash', directives),
        ),
      lacks: VERTEX_LACKS,
      plainPromptTokens: 11,
      streamError: { status: 503, errorType: 'provider_overloaded' },
    },
    {
      name: 'openai',
      adapter: new OpenAiAdapter(upstream),
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-openai',
            name: 'OpenAI',
            format: 'openai',
            baseUrl: `${simulatorUrl}/openai/v1`,
            apiKey: options?.badCredential ? 'sk-sim-invalid' : 'sk-sim',
          },
          withDirectives('gpt-4o-mini', directives),
        ),
      lacks: {
        ...NO_FILTER,
        'cache-write': "OpenAI's usage reports no cache writes (prompt caching is automatic)",
      },
      plainPromptTokens: 14,
      streamError: { status: 502, errorType: 'provider_unavailable' },
    },
    {
      name: 'anthropic',
      adapter: new AnthropicAdapter(upstream),
      endpoint: (directives, options) =>
        endpointOf(
          {
            id: 'sim-anthropic',
            name: 'Anthropic',
            format: 'anthropic',
            baseUrl: `${simulatorUrl}/anthropic/v1`,
            apiKey: options?.badCredential ? 'sk-ant-sim-invalid' : 'sk-ant-sim',
          },
          withDirectives('claude-sonnet-4-5', directives),
        ),
      lacks: {
        'reasoning-tokens': "Anthropic's usage counts thinking inside output_tokens, with no count of its own",
        'filter-refusal': "Claude's refusal keeps what was written before it; its explanation is in stop_details, not a refusal text",
      },
      // Claude's streaming classifiers end the answer with stop_reason refusal; spent credit is a 402 billing_error.
      faults: { quota: 'status=402' },
      // An account out of credit is the gateway's provider account, not the caller's fault (as every 402).
      failures: { quota: { status: 502, errorType: 'provider_unavailable', retryable: false } },
      plainPromptTokens: 11,
      streamError: { status: 503, errorType: 'provider_overloaded' },
    },
  ];
}
