import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

/**
 * The AWS keys the simulated account knows (the dev stack and tests sign with these through
 * the standard AWS chain). `SIMULATOR_AWS_ACCESS_KEY_ID` / `..._SECRET_ACCESS_KEY` override them.
 */
export const SIM_AWS_ACCESS_KEY_ID = process.env.SIMULATOR_AWS_ACCESS_KEY_ID || 'AKIASIMULATOR0000001';
export const SIM_AWS_SECRET_ACCESS_KEY = process.env.SIMULATOR_AWS_SECRET_ACCESS_KEY || 'simulator/secret/key/0000000000000000000';

/** AWS refuses a signature dated more than five minutes away from its clock. */
const MAX_SKEW_MS = 5 * 60 * 1000;

/** How far the simulated AWS clock is from this host's (`POST /sim/aws/clock`): a client's skewed clock, seen from AWS. */
let clockOffsetMs = 0;

export function setAwsClockOffset(offsetMs: number): void {
  clockOffsetMs = offsetMs;
}

/** The simulated AWS clock: what it checks signatures against and sends as its `Date` header. */
export function awsNow(): number {
  return Date.now() + clockOffsetMs;
}

const amzDateOf = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, '');

export interface AwsAuthError {
  status: number;
  type: string;
  message: string;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
}

/**
 * Verifies a SigV4-signed request as AWS does: the signature is recomputed (with the smithy
 * signer, from the secret of the access key it names) over the method, the raw path, the query,
 * the headers it says it signed and the body, and compared. Bedrock's 403 wording on failure.
 */
export async function verifySigV4(
  req: IncomingMessage,
  rawPath: string,
  query: URLSearchParams,
  body: Buffer,
  service: string,
): Promise<AwsAuthError | undefined> {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header === '') {
    return { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  }
  const m = AUTHORIZATION.exec(header);
  if (!m) {
    return {
      status: 403,
      type: 'IncompleteSignatureException',
      message: `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${header.split(' ')[0]}`,
    };
  }
  const [, accessKeyId, day, region, signedService, signedHeaders, signature] = m as unknown as string[];
  if (accessKeyId !== SIM_AWS_ACCESS_KEY_ID) {
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (signedService !== service) {
    return { status: 403, type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${service}'.` };
  }
  const amzDate = req.headers['x-amz-date'];
  const signedAt = typeof amzDate === 'string' ? parseAmzDate(amzDate) : undefined;
  if (signedAt === undefined || !String(amzDate).startsWith(day!)) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.',
    };
  }
  // AWS's wording, both ways: the limit it compares with, then its clock and the five minutes.
  const now = awsNow();
  if (signedAt < now - MAX_SKEW_MS) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: `Signature expired: ${amzDate} is now earlier than ${amzDateOf(now - MAX_SKEW_MS)} (${amzDateOf(now)} - 5 min.)`,
    };
  }
  if (signedAt > now + MAX_SKEW_MS) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: `Signature not yet current: ${amzDate} is still later than ${amzDateOf(now + MAX_SKEW_MS)} (${amzDateOf(now)} + 5 min.)`,
    };
  }
  const names = signedHeaders!.split(';');
  if (!names.includes('host'))
    return { status: 403, type: 'InvalidSignatureException', message: "'Host' must be a 'SignedHeader' in the AWS Authorization." };
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = req.headers[name];
    if (value === undefined) return signatureMismatch();
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY },
    region: region!,
    service,
    sha256: Sha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const [hostname, port] = headers.host!.split(':');
  const signed = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: hostname!,
      port: port ? Number(port) : undefined,
      // As it came: the client signed its already-escaped path, which the signer escapes once more.
      path: rawPath,
      query: Object.fromEntries(query),
      headers,
      body,
    } as never,
    { signingDate: new Date(signedAt), signableHeaders: new Set(names) },
  );
  const expected =
    /Signature=([0-9a-f]{64})/.exec(String((signed as unknown as { headers: Record<string, string> }).headers.authorization))?.[1] ?? '';
  const given = Buffer.from(signature!);
  return expected.length === given.length && timingSafeEqual(Buffer.from(expected), given) ? undefined : signatureMismatch();
}

function signatureMismatch(): AwsAuthError {
  return {
    status: 403,
    type: 'InvalidSignatureException',
    message:
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  };
}
