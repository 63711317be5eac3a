import { describe, expect, it } from 'vitest';
import { closeSync, openSync, writeSync } from 'node:fs';
import { CpuMeter, machineBusyMs, processSyscalls, sharedStoreProcesses } from './cpu.ts';

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

  it('counts the system calls a process makes', () => {
    const meter = new CpuMeter([{ name: 'self', pid: process.pid }]);
    const before = processSyscalls(process.pid)!;
    const fd = openSync('/dev/null', 'w');
    for (let i = 0; i < 20; i += 1) writeSync(fd, 'x');
    const after = processSyscalls(process.pid)!;
    closeSync(fd);
    expect(after.write - before.write).toBeGreaterThanOrEqual(20);
    expect(meter.syscallsPerRequest(10).self!.write).toBeGreaterThanOrEqual(2);
    expect(processSyscalls(2 ** 30)).toBeUndefined(); // no such process
  });
});
