import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';

const UPLOAD = Symbol('batchUpload');
const BATCH_CREATE = /^\/v1\/batches\/?(\?|$)/;

type WithUpload = FastifyRequest & { [UPLOAD]?: Readable };

/**
 * POST /v1/batches takes bodies far above BODY_LIMIT_BYTES (BATCH_MAX_BYTES, 100 MB by default)
 * and reads them as a stream: its payload is set aside here, before Fastify's JSON
 * parser would read it whole into one string, and the parser sees an empty body. The
 * controller parses the stream after authentication; BATCH_MAX_BYTES is enforced while reading.
 */
export function registerBatchUploadHook(fastify: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and a promise each costs more than the test.
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.method !== 'POST' || !BATCH_CREATE.test(request.url)) return done(null, payload);
    (request as WithUpload)[UPLOAD] = payload;
    // The length announced is the upload's, not the empty body's the parser gets.
    delete request.headers['content-length'];
    done(null, Readable.from([]));
  });
}

/** The upload stream of a POST /v1/batches, once (undefined when there was no body). */
export function takeBatchUpload(request: FastifyRequest): Readable | undefined {
  const upload = (request as WithUpload)[UPLOAD];
  delete (request as WithUpload)[UPLOAD];
  return upload;
}
