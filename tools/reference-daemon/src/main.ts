import { startReferenceDaemon } from './daemon-server.ts';

/**
 * `INTERN_ID=<uuid> JWKS_URL=http://127.0.0.1:8080/v1/daemon/jwks.json node tools/reference-daemon/src/main.ts`
 * (DAEMON_PORT, DAEMON_WINDOW_SECONDS, DAEMON_REQUIRE_V2=true optional).
 */
const internId = process.env.INTERN_ID;
const jwksUrl = process.env.JWKS_URL;
if (!internId || !jwksUrl) {
  console.error("Set INTERN_ID (the intern this daemon serves) and JWKS_URL (the gateway's /v1/daemon/jwks.json)");
  process.exit(1);
}
const daemon = await startReferenceDaemon({
  internId,
  jwksUrl,
  port: Number(process.env.DAEMON_PORT ?? 8787),
  windowSeconds: process.env.DAEMON_WINDOW_SECONDS ? Number(process.env.DAEMON_WINDOW_SECONDS) : undefined,
  requireV2: process.env.DAEMON_REQUIRE_V2 === 'true',
});
console.log(`reference daemon for intern ${internId} listening on ${daemon.url}`);
