import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * podman as this machine allows it: `podman build --isolation=chroot` works, `podman run`
 * does not (no permission to set rlimits or cgroups). An image is started instead from its
 * own filesystem: `podman image mount`, then chroot into it with the image's entry point,
 * working directory, environment and user, inside new PID and mount namespaces so Node is
 * PID 1 (as under a container runtime) and the root filesystem is read-only with a tmpfs
 * on /tmp (as the Helm chart runs it).
 */

export function podman(args: string[], options: { stdio?: 'inherit' | 'pipe' } = {}): string {
  return (
    execFileSync('podman', args, { encoding: 'utf8', stdio: ['ignore', options.stdio ?? 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 }) ??
    ''
  );
}

export function imageExists(tag: string): boolean {
  try {
    podman(['image', 'exists', tag]);
    return true;
  } catch {
    return false;
  }
}

export interface ImageConfig {
  entrypoint: string[];
  cmd: string[];
  env: string[];
  workingDir: string;
  user: string;
  labels: Record<string, string>;
  healthcheck: string[] | undefined;
  sizeBytes: number;
}

export function inspectImage(tag: string): ImageConfig {
  const [image] = JSON.parse(podman(['image', 'inspect', tag])) as Array<{
    Size: number;
    // podman reports a docker-format image's HEALTHCHECK at the top level.
    Healthcheck?: { Test?: string[] };
    Config: {
      Entrypoint?: string[];
      Cmd?: string[];
      Env?: string[];
      WorkingDir?: string;
      User?: string;
      Labels?: Record<string, string>;
      Healthcheck?: { Test?: string[] };
    };
  }>;
  if (!image) throw new Error(`no image ${tag}`);
  return {
    entrypoint: image.Config.Entrypoint ?? [],
    cmd: image.Config.Cmd ?? [],
    env: image.Config.Env ?? [],
    workingDir: image.Config.WorkingDir || '/',
    user: image.Config.User || '0:0',
    labels: image.Config.Labels ?? {},
    healthcheck: image.Healthcheck?.Test ?? image.Config.Healthcheck?.Test,
    sizeBytes: image.Size,
  };
}

/** A process started from an image's filesystem. */
export interface ChrootProcess {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGTERM to the entry point (PID 1 of its namespace), as a container runtime's stop. */
  terminate(): void;
  log(): string;
}

// Runs as root on the host: binds the image root, mounts /proc, /dev and a /tmp tmpfs,
// remounts the root read-only, then chroots as the image's user. exec keeps the entry
// point as PID 1 of the new PID namespace.
const LAUNCHER = `set -e
root="$1"; user="$2"; workdir="$3"; shift 3
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o size=64m,mode=1777 tmpfs "$root/tmp"
mount -o remount,bind,ro "$root"
exec chroot --userspec="$user" "$root" /usr/bin/env -i -C "$workdir" "$@"`;

export function startFromImage(
  tag: string,
  options: { entrypoint?: string[]; args?: string[]; env?: Record<string, string>; logDir: string; name: string },
): ChrootProcess {
  const config = inspectImage(tag);
  const root = podman(['image', 'mount', tag]).trim();
  if (!existsSync(join(root, 'usr/bin/env'))) throw new Error(`${tag}: mounted at ${root} but has no /usr/bin/env`);
  const env = [...config.env, ...Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`)];
  const command = [...(options.entrypoint ?? config.entrypoint), ...(options.args ?? config.cmd)];
  mkdirSync(options.logDir, { recursive: true });
  const logFile = join(options.logDir, `${options.name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(
    'unshare',
    [
      '--pid',
      '--fork',
      '--mount',
      '--kill-child',
      'sh',
      '-c',
      LAUNCHER,
      'launcher',
      root,
      config.user,
      config.workingDir,
      ...env,
      ...command,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    logFile,
    exited,
    terminate() {
      // unshare's only child is the namespace's PID 1: the entry point after the execs.
      // Nothing to signal when it has already exited (its exit code tells why).
      if (child.exitCode !== null || child.signalCode !== null) return;
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      for (const pid of children) process.kill(Number(pid), 'SIGTERM');
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}
