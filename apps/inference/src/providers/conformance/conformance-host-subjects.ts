import type { UpstreamClient } from '../../upstream/upstream-client.js';
import type { OpenAiHost } from '../openai/hosts/openai-hosts.js';
import { OpenAiAdapter } from '../openai/openai.adapter.js';
import type { Capability, ConformanceSubject } from './conformance-run.js';
import { endpointOf } from './conformance-subjects.js';

const ALL: Capability[] = ['tools', 'cache-usage', 'credential', 'json-schema', 'images', 'reasoning-tokens'];
const without = (...missing: Capability[]): Capability[] => ALL.filter((capability) => !missing.includes(capability));

/**
 * Each named OpenAI-compatible host as the conformance table runs it: the OpenAI adapter with
 * the host's profile, against the simulator's strict copy of that host (`/hosts/{host}/v1`).
 * What a host lacks is what its real API lacks: no schema output on DeepSeek (JSON mode only),
 * no tools or cache counts on Perplexity, no credential on Ollama and LM Studio.
 */
const HOSTS: ReadonlyArray<{ host: OpenAiHost; model: string; capabilities: Capability[] }> = [
  { host: 'groq', model: 'llama-3.3-70b-versatile', capabilities: ALL },
  { host: 'mistral', model: 'mistral-large-latest', capabilities: ALL },
  { host: 'deepseek', model: 'deepseek-chat', capabilities: without('json-schema', 'images') },
  { host: 'xai', model: 'grok-4', capabilities: ALL },
  { host: 'together', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', capabilities: ALL },
  { host: 'fireworks', model: 'accounts/fireworks/models/llama-v3p3-70b-instruct', capabilities: ALL },
  { host: 'cerebras', model: 'gpt-oss-120b', capabilities: ALL },
  { host: 'openrouter', model: 'openai/gpt-4o-mini', capabilities: ALL },
  { host: 'perplexity', model: 'sonar', capabilities: without('tools', 'cache-usage') },
  { host: 'vllm', model: 'Qwen/Qwen3-8B', capabilities: ALL },
  { host: 'ollama', model: 'llama3.2', capabilities: without('credential') },
  { host: 'lmstudio', model: 'qwen3-8b', capabilities: without('credential') },
  { host: 'llamacpp', model: 'gguf', capabilities: ALL },
];

export const HOST_SUBJECT_NAMES = HOSTS.map(({ host }) => host);

export function hostSubjects(simulatorUrl: string, upstream: UpstreamClient): ConformanceSubject[] {
  const adapter = new OpenAiAdapter(upstream);
  return HOSTS.map(({ host, model, capabilities }) => ({
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
    capabilities: new Set(capabilities),
    plainPromptTokens: 14,
    streamError: { status: 502, errorType: 'provider_unavailable' },
  }));
}
