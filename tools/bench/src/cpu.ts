import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * System calls a process has made so far (`syscr`, `syscw` of /proc/<pid>/io: reads and writes of
 * any kind, sockets included); undefined when it is gone. A count of work, not time: on a noisy
 * machine it moves far less than CPU, and a write to a loopback socket is also a wake-up of the peer.
 */
export function processSyscalls(pid: number): { read: number; write: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const read = /^syscr:\s+(\d+)$/m.exec(io);
    const write = /^syscw:\s+(\d+)$/m.exec(io);
    return read && write ? { read: Number(read[1]), write: Number(write[1]) } : undefined;
  } catch {
    return undefined;
  }
}

export interface NamedProcess {
  name: string;
  pid: number;
}

/**
 * Busy CPU of the whole machine so far, in ms, from /proc/stat's first line (every core: user,
 * nice, system, irq, softirq, steal; idle and iowait excluded). It counts everything a request
 * costs, the load generator, kernel networking and processes the bench does not name included.
 */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}

/**
 * The machine's shared stores, each as all its processes (PostgreSQL runs one backend per
 * connection): they serve the gateway's path too (usage counting, limits, the ledger), so the
 * per-process breakdown names them. Processes are found by their command name.
 */
export function sharedStoreProcesses(): NamedProcess[] {
  return storeProcesses(() => true);
}

/**
 * The stores' processes that serve one run only: the PostgreSQL backends connected to its own
 * databases (their title names the database) and its own redis-server. Other sessions' queries
 * on the machine's shared servers are then not counted as this run's work.
 */
export function runStoreProcesses(databasePrefix: string, redisPid: number): NamedProcess[] {
  return storeProcesses((name, pid) =>
    name === 'redis' ? pid === redisPid : readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${databasePrefix}_`),
  );
}

function storeProcesses(keep: (name: string, pid: number) => boolean): NamedProcess[] {
  const names: Record<string, string> = { postgres: 'postgresql', 'redis-server': 'redis' };
  const found: NamedProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = names[readFileSync(`/proc/${entry}/comm`, 'utf8').trim()];
      if (name && keep(name, Number(entry))) found.push({ name, pid: Number(entry) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU spent by each process of a path while a run was measured. On a shared, noisy machine
 * wall-clock throughput swings by 2x between runs; CPU per request barely moves, so it shows
 * what a change costs even when the machine is busy.
 */
export class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly syscallsStart = new Map<number, { read: number; write: number }>();
  private readonly processes: NamedProcess[];
  private readonly machineStart = machineBusyMs();
  private readonly ownStart = process.cpuUsage();

  constructor(processes: NamedProcess[], stores: () => NamedProcess[] = sharedStoreProcesses) {
    this.processes = [...processes, ...stores()];
    for (const { pid } of this.processes) {
      this.start.set(pid, processCpuMs(pid) ?? 0);
      this.syscallsStart.set(pid, processSyscalls(pid) ?? { read: 0, write: 0 });
    }
  }

  /**
   * Read and write system calls per request of each named process since construction (the
   * shared stores summed over their processes), to two decimals: how many socket reads and
   * writes, hence wake-ups, a request costs each process.
   */
  syscallsPerRequest(requests: number): Record<string, { read: number; write: number }> {
    const counts: Record<string, { read: number; write: number }> = {};
    for (const { name, pid } of this.processes) {
      const end = processSyscalls(pid);
      const start = this.syscallsStart.get(pid);
      if (!end || !start) continue;
      const sum = (counts[name] ??= { read: 0, write: 0 });
      sum.read += end.read - start.read;
      sum.write += end.write - start.write;
    }
    // Summed first, divided once: many PostgreSQL backends with a few calls each still add up.
    const perRequest = (count: number) => (requests > 0 ? Math.round((count * 100) / requests) / 100 : 0);
    return Object.fromEntries(
      Object.entries(counts).map(([name, { read, write }]) => [name, { read: perRequest(read), write: perRequest(write) }]),
    );
  }

  /**
   * CPU ms per process since construction, divided by `requests`: µs per request; `total` sums
   * the named processes, `machine` is the whole machine's busy time per request (the load
   * generator and the kernel included; other work on the machine too, so run it idle), and
   * `loadGenerator` this process's own (autocannon runs in it), which `total` leaves out.
   */
  microsPerRequest(requests: number): Record<string, number> {
    const result: Record<string, number> = {};
    const perRequest = (usedMs: number) => (requests > 0 ? Math.round((usedMs * 1000) / requests) : 0);
    let total = 0;
    for (const { name, pid } of this.processes) {
      const end = processCpuMs(pid);
      if (end === undefined) continue; // exited during the run (a PostgreSQL backend)
      const used = perRequest(end - (this.start.get(pid) ?? 0));
      result[name] = (result[name] ?? 0) + used;
      total += used;
    }
    result.total = total;
    result.machine = perRequest(machineBusyMs() - this.machineStart);
    const own = process.cpuUsage(this.ownStart);
    result.loadGenerator = perRequest((own.user + own.system) / 1000);
    return result;
  }
}
