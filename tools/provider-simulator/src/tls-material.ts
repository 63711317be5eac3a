import { KeyObject, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/** The key pair x509 takes: Node's webcrypto keys, typed as the library (DOM or Node) sees them. */
type KeyPair = Parameters<typeof X509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

export interface TlsMaterial {
  /** The certificate authority to trust (PEM): the only thing a client is given. */
  ca: string;
  /** The server's certificate (PEM), for 127.0.0.1 and localhost, signed by that authority. */
  cert: string;
  /** The server's private key (PKCS#8 PEM). */
  key: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 86_400_000;

/**
 * A certificate authority made for one run and a server certificate it signed. The authority's
 * private key is dropped once the certificate is signed, so nothing else can ever be issued
 * under it: trusting it trusts this one server and nothing more.
 */
export async function createTlsMaterial(hosts: { ips?: string[]; dns?: string[] } = {}): Promise<TlsMaterial> {
  // Loaded when asked for: the library's container needs the reflect polyfill, which the simulator does not.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as never);
  const now = Date.now();
  const validity = { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 30 * DAY_MS) };
  const caKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as KeyPair;
  const serverKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as KeyPair;
  const serial = () => `7f${Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')}`;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Inference gateway stack CA (one run)',
    ...validity,
    signingAlgorithm: ALGORITHM,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const names = [
    ...(hosts.ips ?? ['127.0.0.1']).map((value) => ({ type: 'ip' as const, value })),
    ...(hosts.dns ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
  ];
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${names[0]!.value}`,
    issuer: ca.subject,
    ...validity,
    signingAlgorithm: ALGORITHM,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  return {
    ca: ca.toString('pem'),
    cert: server.toString('pem'),
    key: KeyObject.from(serverKeys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
