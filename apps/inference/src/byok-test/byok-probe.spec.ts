import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../catalog/catalog.schema.js';
import { probeOf, runProbe } from './byok-probe.js';

const KEY = 'sk-byok-secret-0123456789';
let server: Server;
let base: string;

beforeAll(async () => {
  // A provider's model list: 200 for the right key, 401 echoing the key (as some providers do), or no answer at all.
  server = createServer((request, response) => {
    if (request.url === '/hang/models') return;
    const auth = request.headers.authorization ?? request.headers['x-api-key'];
    if (auth === `Bearer ${KEY}` || auth === KEY) return response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    response
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: `Incorrect API key provided: ${String(auth)}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const provider = (format: string, path = '/v1'): ProviderConfig =>
  ({ id: 'p', name: 'P', format, baseUrl: `${base}${path}`, apiKey: '' }) as ProviderConfig;

describe('a BYOK credential tested by one model-list call', () => {
  it('says ok when the provider accepts the key, as each format sends it', async () => {
    for (const format of ['openai', 'anthropic']) {
      const probe = probeOf(provider(format), KEY)!;
      expect(probe.url).toBe(`${base}/v1/models`);
      await expect(runProbe(probe)).resolves.toEqual({ ok: true, status: 200, message: 'The provider accepted the credential' });
    }
  });

  it("says the key was refused, without the provider's body (which may echo the key)", async () => {
    const result = await runProbe(probeOf(provider('openai'), 'sk-wrong-key-9876543210')!);
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(result.message).toBe('The provider refused the credential (HTTP 401)');
    expect(JSON.stringify(result)).not.toContain('sk-wrong');
  });

  it('gives up on a provider that does not answer, and on one that cannot be reached', async () => {
    await expect(runProbe(probeOf(provider('openai', '/hang'), KEY)!, 200)).resolves.toEqual({
      ok: false,
      status: null,
      message: 'The provider did not answer within 0.2 s',
    });
    const closed = probeOf({ ...provider('openai'), baseUrl: 'http://127.0.0.1:1/v1' } as ProviderConfig, KEY)!;
    await expect(runProbe(closed)).resolves.toMatchObject({ ok: false, status: null, message: 'The provider could not be reached' });
  });

  it('has no one-call test for formats whose credential is no plain key', () => {
    for (const format of ['bedrock', 'vertex', 'azure']) expect(probeOf(provider(format), KEY)).toBeNull();
  });
});
