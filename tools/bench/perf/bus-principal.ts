/**
 * `node tools/bench/perf/bus-principal.ts` (after `npm run build`): what a signed principal on
 * the bus costs per request, in one process: the gateway's signature, a service's whole check
 * (`PrincipalVerifier.verify`: header read, Ed25519 verification, claims), and for comparison
 * tweetnacl's verification, the portable verifier the daemons embed; and a usage event's check
 * by its consumer (`UsagePrincipalVerifier.refusal`): each interactive event has its own
 * token (a verification each), a batch's lines share their grant (verified once), as a key's cache
 * hits answered by the gateway share their hit grant. CPU microseconds per call.
 */
import 'reflect-metadata';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { SUBJECTS, tenancyOf, type Principal } from '@gw/contracts';
import {
  batchIdOfGrant,
  generatePrincipalKeyPair,
  generationIdOf,
  PRINCIPAL_HEADER,
  PrincipalSigner,
  PrincipalVerifier,
  UsagePrincipalVerifier,
  principalPublicKeys,
  principalSigningKey,
  readPrincipalClaims,
} from '@gw/messaging';
import nacl from 'tweetnacl';

const CALLS = Number(process.env.CALLS ?? 20_000);
const pair = generatePrincipalKeyPair();
const signer = new PrincipalSigner(principalSigningKey(pair.signingKey));
const verifier = new PrincipalVerifier(principalPublicKeys(pair.publicKey));
const principal: Principal = {
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  keyKind: 'standard',
  userId: '22222222-2222-4222-8222-222222222222',
  hasPersonalIdentity: false,
};
const subject = SUBJECTS.inference.chatStream;
const tenancy = tenancyOf(subject)!;
const data = { principal, body: { model: 'm', messages: [] } };
const requestId = 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const token = signer.sign(tenancy, data, requestId)!;
const headers = natsHeaders();
headers.set('x-request-id', requestId);
headers.set(PRINCIPAL_HEADER, token);

function measure(name: string, calls: number, run: () => void): void {
  for (let index = 0; index < Math.min(1_000, calls); index++) run();
  const before = process.cpuUsage();
  for (let index = 0; index < calls; index++) run();
  const used = process.cpuUsage(before);
  console.log(`${name.padEnd(44)} ${((used.user + used.system) / calls).toFixed(1).padStart(8)} us CPU per call`);
}

console.log(`token: ${token.length} characters`);
measure('gateway: sign (node:crypto)', CALLS, () => signer.sign(tenancy, data, requestId));
measure('service: PrincipalVerifier.verify (node:crypto)', CALLS, () => verifier.verify(subject, headers, data));
const [body, signature] = token.split('.') as [string, string];
const publicKey = Buffer.from(pair.publicKey, 'base64');
const bodyBytes = Buffer.from(body, 'latin1');
const signatureBytes = Buffer.from(signature, 'base64url');
measure('for comparison: tweetnacl verify', Math.max(20, Math.round(CALLS / 200)), () => {
  if (!nacl.sign.detached.verify(bodyBytes, signatureBytes, publicKey)) throw new Error('tweetnacl refused a good signature');
});

// A consumer of USAGE: tokens it has not seen (one per interactive request), and a batch's grant it has.
const usageVerifier = new UsagePrincipalVerifier(principalPublicKeys(pair.publicKey));
const fresh = Array.from({ length: CALLS + 1_000 }, (_, index) => signer.sign(tenancy, data, `${requestId}-${index}`)!);
const freshIds = fresh.map((token) => generationIdOf(readPrincipalClaims(token)!.n!, 0));
let next = 0;
measure('consumer: usage event, its own token', CALLS, () => {
  const index = next++;
  const event = {
    generationId: freshIds[index]!,
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    requestId: `${requestId}-${index}`,
    principal: fresh[index],
  };
  if (usageVerifier.refusal(event, Date.now())) throw new Error('refused a good usage event');
});
const grant = signer.sign(tenancyOf(SUBJECTS.batch.batchesCreate)!, data, requestId)!;
const line = {
  generationId: 'gen-line',
  workspaceId: principal.workspaceId,
  keyHash: principal.keyHash,
  batchId: batchIdOfGrant(readPrincipalClaims(grant)!.n!),
  principal: grant,
};
measure('consumer: usage event of a batch line (grant)', CALLS, () => {
  if (usageVerifier.refusal(line, Date.now())) throw new Error('refused a good batch line');
});
// A response-cache hit answered by the gateway: its key's hit grant, signed once for many hits and verified once.
const hitGrant = signer.hitGrant(principal);
const hit = {
  workspaceId: principal.workspaceId,
  keyHash: principal.keyHash,
  requestId,
  cacheHit: true,
  upstreamCost: '0',
  principal: hitGrant,
};
measure('consumer: usage event of a cache hit (hit grant)', CALLS, () => {
  if (usageVerifier.refusal(hit, Date.now())) throw new Error('refused a good cache hit');
});
console.log(`a usage event grows by the token: ${JSON.stringify({ principal: token }).length - 2} bytes of JSON`);
