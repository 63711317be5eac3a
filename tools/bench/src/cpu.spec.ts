import { describe, expect, it } from 'vitest';
import { CpuMeter, machineBusyMs, sharedStoreProcesses } from './cpu.ts';

describe('CPU accounting of the bench', () => {
  it('sees the machine busy while this process spins', () => {
    const before = machineBusyMs();
    const until = Date.now() + 150;
    while (Date.now() < until) Math.sqrt(Math.random());
    // Ticks are 10 ms; 150 ms of spinning is at least a few of them.
    expect(machineBusyMs() - before).toBeGreaterThanOrEqual(50);
  });

  it('names the shared stores this machine runs (PostgreSQL backends, Redis) in every breakdown', () => {
    const names = new Set(sharedStoreProcesses().map((process) => process.name));
    expect(names).toEqual(new Set(['postgresql', 'redis']));
    const figures = new CpuMeter([{ name: 'self', pid: process.pid }]).microsPerRequest(1);
    expect(Object.keys(figures)).toEqual(expect.arrayContaining(['self', 'postgresql', 'redis', 'total', 'machine']));
  });
});
