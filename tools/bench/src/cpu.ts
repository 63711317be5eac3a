import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux x86_64). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; undefined when it is gone. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "pid (comm) ": state is field 3, utime 14, stime 15 (1-based); comm may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const userTicks = Number(fields[11]);
    const systemTicks = Number(fields[12]);
    return ((userTicks + systemTicks) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface NamedProcess {
  name: string;
  pid: number;
}

/**
 * CPU spent by each process of a path while a run was measured. On a shared, noisy machine
 * wall-clock throughput swings by 2x between runs; CPU per request barely moves, so it shows
 * what a change costs even when the machine is busy.
 */
export class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly processes: NamedProcess[];

  constructor(processes: NamedProcess[]) {
    this.processes = processes;
    for (const { pid } of processes) this.start.set(pid, processCpuMs(pid) ?? 0);
  }

  /** CPU ms per process since construction, divided by `requests`: µs per request. */
  microsPerRequest(requests: number): Record<string, number> {
    const result: Record<string, number> = {};
    let total = 0;
    for (const { name, pid } of this.processes) {
      const used = (processCpuMs(pid) ?? 0) - (this.start.get(pid) ?? 0);
      const perRequest = requests > 0 ? Math.round((used * 1000) / requests) : 0;
      result[name] = (result[name] ?? 0) + perRequest;
      total += perRequest;
    }
    result.total = total;
    return result;
  }
}
