import { SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

export const IS_PUBLIC = 'gw:isPublic';

/** Marks a route that needs no API key (health probes only). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** handler -> controller class -> whether the route is @Public() (metadata is fixed once the classes are decorated). */
const publicRoutes = new WeakMap<object, WeakMap<object, boolean>>();

/**
 * Whether the route is @Public() (on the handler or its controller), as
 * `reflector.getAllAndOverride(IS_PUBLIC, [handler, class])` answers it, looked up once per
 * handler and class and then read from a WeakMap: both guards ask on every request (issue 17).
 */
export function isPublicRoute(reflector: Reflector, context: ExecutionContext): boolean {
  const handler = context.getHandler();
  const controller = context.getClass();
  let byClass = publicRoutes.get(handler);
  if (!byClass) publicRoutes.set(handler, (byClass = new WeakMap()));
  let answer = byClass.get(controller);
  if (answer === undefined) {
    answer = reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [handler, controller]) === true;
    byClass.set(controller, answer);
  }
  return answer;
}
