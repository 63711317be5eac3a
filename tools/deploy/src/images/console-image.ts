import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBaseImage, ensureNginxBase } from './base-image.ts';
import { snapshotContext } from './context.ts';
import { inspectImage, podman } from './podman.ts';

/*
 * npm run test:images -- --console (or node tools/deploy/src/images/console-image.ts): builds
 * docker/console/Containerfile on the local stand-ins for its two registry images (Node 24 and
 * nginx-unprivileged, both from Debian packages), then starts nginx from the image's own
 * filesystem in a private network namespace (the host's 8080 is the dev gateway's) and checks
 * that it serves the app, its compressed assets and the refusal of /console/api/.
 */

const TAG = 'localhost/inference-gateway/console:test';

// As podman.ts's launcher (read-only root, tmpfs /tmp, image's user), plus its own loopback
// network; the probes run in the same namespace with the image's wget.
const PROBE = `set -e
root="$1"
ip link set lo up
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o size=16m,mode=1777 tmpfs "$root/tmp"
mount -o remount,bind,ro "$root"
in_image() { chroot --userspec=101:101 "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# nginx logs to /dev/stderr: a file of its user here (Node's stdio are sockets, which /dev/stderr cannot reopen).
install -o 101 -g 101 -m 600 /dev/null "$root/tmp/nginx.log"
in_image nginx -g 'daemon off;' >"$root/tmp/nginx.log" 2>&1 &
nginx_pid=$!
for i in $(seq 50); do in_image wget -q -O /dev/null http://127.0.0.1:8080/healthz && break; sleep 0.1; done
echo "== healthz"; in_image wget -q -O- http://127.0.0.1:8080/healthz
echo "== index"; in_image wget -q -S -O /dev/null http://127.0.0.1:8080/console/ 2>&1
echo "== deep link"; in_image wget -q -O- http://127.0.0.1:8080/console/keys | grep -c '<div id="root">' || true
asset=$(in_image wget -q -O- http://127.0.0.1:8080/console/ | grep -o '/console/assets/[^"]*\\.js' | head -1)
echo "== asset $asset"; in_image wget -q -S -O /dev/null --header='Accept-Encoding: gzip' "http://127.0.0.1:8080$asset" 2>&1
echo "== api"; in_image wget -q -S -O /dev/null http://127.0.0.1:8080/console/api/v1/keys 2>&1 || true
kill $nginx_pid || true`;

function check(output: string, section: string, pattern: RegExp): boolean {
  const body = output.split('== ').find((part) => part.startsWith(section)) ?? '';
  const ok = pattern.test(body);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${section}: ${pattern}`);
  return ok;
}

export function buildConsoleImage(skipBuild = false): boolean {
  const bases = [ensureBaseImage(), ensureNginxBase()];
  const since = Date.now();
  if (!skipBuild) build(bases[0]!.tag, bases[1]!.tag);
  const buildSeconds = Math.round((Date.now() - since) / 1000);
  const config = inspectImage(TAG);
  const serverBase = inspectImage(bases[1]!.tag);
  console.log(
    `console image: ${(config.sizeBytes / 1e6).toFixed(1)} MB (its nginx base ${(serverBase.sizeBytes / 1e6).toFixed(1)} MB), ` +
      `${skipBuild ? 'not rebuilt' : `built in ${buildSeconds} s`}, user ${config.user}`,
  );
  const root = podman(['image', 'mount', TAG]).trim();
  try {
    const output = execFileSync('unshare', ['--net', '--pid', '--fork', '--mount', 'sh', '-c', PROBE, 'probe', root], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    return [
      check(output, 'healthz', /^healthz\nok/),
      check(output, 'index', /HTTP\/1\.1 200[\s\S]*Content-Security-Policy/),
      check(output, 'deep link', /^deep link\n1/),
      check(output, 'asset', /HTTP\/1\.1 200[\s\S]*Content-Encoding: gzip[\s\S]*immutable/),
      check(output, 'api', /HTTP\/1\.1 502/),
      /^[1-9]\d*(:\d+)?$/.test(config.user) && Boolean(config.healthcheck?.length),
    ].every(Boolean);
  } finally {
    podman(['image', 'unmount', TAG]);
  }
}

function build(baseTag: string, serverTag: string): void {
  const context = snapshotContext();
  try {
    podman(
      [
        'build',
        '--isolation=chroot',
        '--format=docker',
        '--layers',
        '-f',
        join(context, 'docker/console/Containerfile'),
        '--build-arg',
        `BASE_IMAGE=${baseTag}`,
        '--build-arg',
        `SERVER_IMAGE=${serverTag}`,
        '-t',
        TAG,
        context,
      ],
      { stdio: 'inherit' },
    );
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = buildConsoleImage(process.argv.includes('--skip-build')) ? 0 : 1;
