import { startOidcProvider } from './server.ts';

/** `node tools/oidc-provider/src/main.ts`: the local OIDC provider of the dev stack. */
const env = process.env;
const port = Number(env.OIDC_PROVIDER_PORT ?? 8791);
const host = env.OIDC_PROVIDER_HOST ?? '127.0.0.1';
const clientSecret = env.OIDC_CLIENT_SECRET;
if (!clientSecret) {
  console.error('OIDC_CLIENT_SECRET is required (the gateway client secret)');
  process.exit(1);
}
const provider = await startOidcProvider({
  host,
  port,
  issuer: env.OIDC_PROVIDER_ISSUER || undefined,
  clientId: env.OIDC_CLIENT_ID ?? 'gateway-local',
  clientSecret,
  redirectUris: (env.OIDC_REDIRECT_URIS ?? 'http://127.0.0.1:8080/v1/identity/oidc/callback')
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean),
});
console.log(`local OIDC provider at ${provider.issuer}`);
const stop = () => void provider.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
