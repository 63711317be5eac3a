import type { ByokTestView } from '@gw/contracts';
import type { ProviderConfig } from '../catalog/catalog.schema.js';
import { ANTHROPIC_VERSION } from '../providers/anthropic/anthropic.adapter.js';
import { hostAuthHeaders } from '../providers/openai/hosts/host-auth.js';

/** A provider answers its model list in well under this, or the test says it did not answer. */
const PROBE_TIMEOUT_MS = 10_000;

export interface Probe {
  url: string;
  headers: Record<string, string>;
}

/**
 * The cheapest authenticated call of each wire format: its model list (no tokens, no charge).
 * Formats whose credential is no plain key (Bedrock's signing, Vertex's service account, Azure's
 * per-deployment URLs) have none here.
 */
export function probeOf(provider: ProviderConfig, apiKey: string): Probe | null {
  const base = provider.baseUrl.replace(/\/+$/, '');
  switch (provider.format) {
    case 'openai':
      return { url: `${base}/models`, headers: hostAuthHeaders(provider, apiKey) };
    case 'anthropic':
      return { url: `${base}/models`, headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION } };
    case 'gemini':
      return { url: `${base}/models`, headers: { 'x-goog-api-key': apiKey } };
    case 'azure':
    case 'bedrock':
    case 'vertex':
      return null;
  }
}

/** The probe's outcome in words; the provider's body is never read (some echo part of the key). */
export async function runProbe(probe: Probe, timeoutMs = PROBE_TIMEOUT_MS): Promise<ByokTestView> {
  try {
    const response = await fetch(probe.url, { headers: probe.headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    if (response.ok) return { ok: true, status: response.status, message: 'The provider accepted the credential' };
    const why = response.status === 401 || response.status === 403 ? 'refused the credential' : 'answered with an error';
    return { ok: false, status: response.status, message: `The provider ${why} (HTTP ${response.status})` };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      ok: false,
      status: null,
      message: timedOut ? `The provider did not answer within ${timeoutMs / 1000} s` : 'The provider could not be reached',
    };
  }
}
