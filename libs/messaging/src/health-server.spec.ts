import type { AddressInfo } from 'node:net';
import { BehaviorSubject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { connectedWhile, startHealthServer } from './health-server.js';
import type { Server } from 'node:http';

describe('startHealthServer', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function start(status: BehaviorSubject<string>): Promise<string> {
    server = await startHealthServer(0, connectedWhile(status), '127.0.0.1');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('is live always and ready only while the transport is connected', async () => {
    const status = new BehaviorSubject('disconnected');
    const base = await start(status);
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    expect((await fetch(`${base}/health/ready`)).status).toBe(503);
    status.next('connected');
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
    status.next('reconnecting');
    expect((await fetch(`${base}/health/ready`)).status).toBe(503);
  });

  it('answers 404 on any other path', async () => {
    const base = await start(new BehaviorSubject('connected'));
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/health`)).status).toBe(404);
  });
});
