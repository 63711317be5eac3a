import multipart from '@fastify/multipart';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { GatewayEnv } from '../env.js';

const FILES_CREATE = /^\/v1\/files\/?(\?|$)/;
const MULTIPART = /^multipart\/form-data\b/i;

/** POST /v1/files with a form: the one body this API takes that is not JSON. */
export function isFileUpload(request: FastifyRequest): boolean {
  return request.method === 'POST' && FILES_CREATE.test(request.url) && MULTIPART.test(request.headers['content-type'] ?? '');
}

/**
 * Forms are read by @fastify/multipart as streams (nothing buffered): the file part is sent to
 * the batch service as it arrives. Busboy stops a file one byte past FILES_MAX_BYTES, so the
 * uploader sees the excess and answers 413; the form itself is small (`file` and `purpose`).
 */
export async function registerMultipart(app: NestFastifyApplication, env: GatewayEnv): Promise<void> {
  await app.register(multipart, {
    limits: { fileSize: env.FILES_MAX_BYTES + 1, files: 1, fields: 8, parts: 9, fieldSize: 1024, fieldNameSize: 100, headerPairs: 100 },
  });
}
