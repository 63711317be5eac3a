import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from './console-auth.routes.js';
import { ConsoleAuth } from './console-auth.routes.js';
import { registerConsoleApiProxy } from './console-api.proxy.js';
import { registerConsoleStatic } from './console-static.js';

/** The web console on this gateway's origin: its files, its sign-in and session, and its door to the public API. */
export function registerConsole(fastify: FastifyInstance, deps: ConsoleDeps): void {
  const auth = new ConsoleAuth(deps);
  auth.register(fastify);
  registerConsoleApiProxy(fastify, auth);
  registerConsoleStatic(fastify, deps.settings.staticDir);
}
