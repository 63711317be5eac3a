import type { INestMicroservice, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { serveDirect } from './direct-subject.js';
import type { PlainSubjectNatsServer } from './nats-server.strategy.js';

const SERVED_SUBJECT = Symbol('gw:served-subject');

/** A request-reply message of `@gw/contracts` (`rpcMessage(...)`): its subject and payload class. */
interface ServedMessage {
  readonly kind: 'rpc';
  readonly subject: string;
  readonly payload: unknown;
}

/** How a `@ServedSubject` method is served. */
interface ServedSubjectMeta {
  subject: string;
  /** The contract class the payload is validated with; undefined: trusted (ADR 0054). */
  payload: Type<object> | undefined;
}

export interface ServedSubjectOptions {
  /**
   * The payload is not validated again (ADR 0054, 0056, 0068): only for subjects whose every
   * caller (`REQUEST_ROUTES`, enforced by NATS permissions) built or validated it with the
   * subject's contract; the handler's spec asserts that caller list. Replaces `@TrustedPayload()`.
   */
  trusted?: boolean;
}

/**
 * A controller method that answers `message` from a plain NATS subscription in the service's
 * queue group instead of through Nest's microservice dispatch (ADR 0079, generalising ADR 0070).
 * In place of `@MessagePattern`: the method is called with the request's payload, validated with
 * the message's contract class (as `PayloadValidationPipe` would) unless `trusted`, and its
 * result or error is answered as Nest would (`serveDirect` lists what is kept). Parameter
 * decorators do not apply: the payload is the only argument. `startServiceReplica` subscribes
 * every such method of the app's controllers once Nest listens, before it reports ready.
 * A string subject (specs, benches) is trusted.
 */
export function ServedSubject(message: ServedMessage | string, options: ServedSubjectOptions = {}): MethodDecorator {
  const meta: ServedSubjectMeta =
    typeof message === 'string'
      ? { subject: message, payload: undefined }
      : { subject: message.subject, payload: options.trusted ? undefined : (message.payload as Type<object>) };
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(SERVED_SUBJECT, meta, descriptor.value as object);
    return descriptor;
  };
}

/** The subject a method is served on, if it has `@ServedSubject`. */
export function servedSubjectOf(method: unknown): { subject: string; trusted: boolean } | undefined {
  if (typeof method !== 'function') return undefined;
  const meta = Reflect.getMetadata(SERVED_SUBJECT, method) as ServedSubjectMeta | undefined;
  return meta && { subject: meta.subject, trusted: meta.payload === undefined };
}

/**
 * Serves every `@ServedSubject` method of the app's controllers on `server`'s connection, in its
 * queue group. Returns the subjects served. Called by `startServiceReplica` after `listen()`.
 */
export function serveDecoratedSubjects(app: INestMicroservice, server: PlainSubjectNatsServer, queue: string): string[] {
  const served: string[] = [];
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        if (name === 'constructor') continue;
        const method = Object.getOwnPropertyDescriptor(prototype, name)?.value as ((data: unknown) => Promise<unknown>) | undefined;
        const meta =
          typeof method === 'function' ? (Reflect.getMetadata(SERVED_SUBJECT, method) as ServedSubjectMeta | undefined) : undefined;
        if (!meta || !method) continue;
        if (served.includes(meta.subject)) throw new Error(`${meta.subject} is served by two @ServedSubject methods`);
        serveDirect(server, meta.subject, queue, (data) => method.call(instance, data), { payload: meta.payload });
        served.push(meta.subject);
      }
    }
  }
  return served;
}
