import { Controller, Get, type ExecutionContext, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it, vi } from 'vitest';
import { IS_PUBLIC, Public, isPublicRoute } from './public.decorator.js';

@Controller('open')
@Public()
class OpenController {
  @Get()
  list() {}
}

@Controller('mixed')
class MixedController {
  @Get('probe')
  @Public()
  probe() {}

  @Get('closed')
  closed() {}
}

class InheritingController extends MixedController {}
Public()(InheritingController);

const contextOf = (controller: object, handler: object) =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('isPublicRoute', () => {
  it('answers as Reflector.getAllAndOverride does, per handler and per class', () => {
    const reflector = new Reflector();
    const cases: Array<[Type<unknown>, (...args: never[]) => unknown, boolean]> = [
      [OpenController, OpenController.prototype.list, true],
      [MixedController, MixedController.prototype.probe, true],
      [MixedController, MixedController.prototype.closed, false],
      // The same handler under another class: the class's own metadata counts.
      [InheritingController, MixedController.prototype.closed, true],
    ];
    for (const [controller, handler, expected] of cases) {
      expect(isPublicRoute(reflector, contextOf(controller, handler))).toBe(expected);
      expect(reflector.getAllAndOverride(IS_PUBLIC, [handler, controller]) === true).toBe(expected);
    }
  });

  it('asks the Reflector once per handler and class', () => {
    const reflector = new Reflector();
    const spy = vi.spyOn(reflector, 'getAllAndOverride');
    class Fresh {
      handle() {}
    }
    for (let i = 0; i < 5; i++) expect(isPublicRoute(reflector, contextOf(Fresh, Fresh.prototype.handle))).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
