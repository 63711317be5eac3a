import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { InferenceEnv } from '../env.js';

/**
 * The certificate authorities a provider call trusts when UPSTREAM_EXTRA_CA_FILE names some: the
 * system's and the file's (a TLS `ca` replaces the defaults, so both are listed). Undefined
 * without the setting: the defaults apply. An unreadable file stops the service at start.
 */
export function extraCertificateAuthorities(env: Pick<InferenceEnv, 'UPSTREAM_EXTRA_CA_FILE'>): string[] | undefined {
  if (env.UPSTREAM_EXTRA_CA_FILE === '') return undefined;
  const pem = readFileSync(env.UPSTREAM_EXTRA_CA_FILE, 'utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('UPSTREAM_EXTRA_CA_FILE holds no PEM certificate');
  return [...rootCertificates, pem];
}
