import type { UpstreamClient } from '../../upstream/upstream-client.js';
import type { OpenAiHost } from '../openai/hosts/openai-hosts.js';
import { OpenAiAdapter } from '../openai/openai.adapter.js';
import type { ConformanceSubject } from './conformance-run.js';
import { endpointOf } from './conformance-subjects.js';

/** What no host's simulator copy does: it answers through the OpenAI simulator's planner. */
const COMMON_LACKS: ConformanceSubject['lacks'] = {
  'cache-write': 'OpenAI-compatible hosts report no cache writes',
  'answer-filter': 'the host has no content filter that ends an answer',
  'prompt-filter': 'the host has no content filter that refuses a prompt',
};
const NO_CREDENTIAL = 'a local server that takes no key';

/**
 * Each named OpenAI-compatible host as the conformance table runs it: the OpenAI adapter with
 * the host's profile, against the simulator's strict copy of that host (`/hosts/{host}/v1`).
 * What a host lacks is what its real API lacks.
 */
const HOSTS: ReadonlyArray<{ host: OpenAiHost; model: string; lacks?: ConformanceSubject['lacks'] }> = [
  { host: 'groq', model: 'llama-3.3-70b-versatile' },
  { host: 'mistral', model: 'mistral-large-latest' },
  {
    host: 'deepseek',
    model: 'deepseek-chat',
    lacks: { 'json-schema': 'DeepSeek has JSON mode only, no schema output', images: "DeepSeek's chat models take no images" },
  },
  { host: 'xai', model: 'grok-4' },
  { host: 'together', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo' },
  { host: 'fireworks', model: 'accounts/fireworks/models/llama-v3p3-70b-instruct' },
  { host: 'cerebras', model: 'gpt-oss-120b' },
  { host: 'openrouter', model: 'openai/gpt-4o-mini' },
  {
    host: 'perplexity',
    model: 'sonar',
    lacks: {
      tools: 'Perplexity takes no tools',
      'parallel-tools': 'Perplexity takes no tools',
      'streamed-tool-args': 'Perplexity takes no tools',
      'cache-usage': 'Perplexity reports no cached tokens',
    },
  },
  { host: 'vllm', model: 'Qwen/Qwen3-8B' },
  { host: 'ollama', model: 'llama3.2', lacks: { credential: NO_CREDENTIAL } },
  { host: 'lmstudio', model: 'qwen3-8b', lacks: { credential: NO_CREDENTIAL } },
  { host: 'llamacpp', model: 'gguf' },
];

export const HOST_SUBJECT_NAMES = HOSTS.map(({ host }) => host);

export function hostSubjects(simulatorUrl: string, upstream: UpstreamClient): ConformanceSubject[] {
  const adapter = new OpenAiAdapter(upstream);
  return HOSTS.map(({ host, model, lacks }) => ({
    name: host,
    adapter,
    endpoint: (directives, options) =>
      endpointOf(
        {
          id: `sim-${host}`,
          name: host,
          format: 'openai',
          host,
          baseUrl: `${simulatorUrl}/hosts/${host}/v1`,
          apiKey: options?.badCredential ? 'sk-sim-invalid' : 'sk-sim',
        },
        directives ? `${model};${directives}` : model,
      ),
    lacks: { ...COMMON_LACKS, ...lacks },
    plainPromptTokens: 14,
    streamError: { status: 502, errorType: 'provider_unavailable' },
  }));
}
