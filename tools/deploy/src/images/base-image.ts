import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WORKSPACE_ROOT } from '../helm.ts';
import { imageExists } from './podman.ts';

/**
 * The stand-in for the official Node image (no container registry is reachable here): a
 * Debian bookworm made by `debootstrap --variant=minbase` from Debian's packages, plus the
 * Node binary the project pins (the `node` devDependency) and an npm for the build stage.
 * Built once per Node version; later runs reuse the image.
 */
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export function ensureBaseImage(): { tag: string; built: boolean } {
  const nodeBinary = join(WORKSPACE_ROOT, 'node_modules/node/bin/node');
  const version = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  const tag = `localhost/gw-node-base:${version}-bookworm`;
  if (imageExists(tag)) return { tag, built: false };

  const rootfs = mkdtempSync('/var/tmp/gw-base-');
  try {
    const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
    execFileSync('debootstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', rootfs, mirror], { stdio: 'inherit' });
    copyFileSync(nodeBinary, join(rootfs, 'usr/local/bin/node'));
    chmodSync(join(rootfs, 'usr/local/bin/node'), 0o755);
    // npm for the build stage's `npm ci`: the one that runs this script (global install).
    // `npm run` names its own CLI in npm_execpath; `npm root -g` answers for the pinned Node's
    // prefix (node_modules/node), which holds no npm.
    const npmDir = process.env.npm_execpath
      ? dirname(dirname(process.env.npm_execpath))
      : join(execFileSync('npm', ['root', '--global'], { encoding: 'utf8' }).trim(), 'npm');
    if (!existsSync(join(npmDir, 'bin/npm-cli.js'))) throw new Error(`npm not found at ${npmDir}`);
    const npmTarget = join(rootfs, 'usr/local/lib/node_modules/npm');
    mkdirSync(dirname(npmTarget), { recursive: true });
    cpSync(npmDir, npmTarget, { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx'));
    // The host's trust store, for the build stage's npm ci: where egress goes through a TLS
    // proxy with its own CA, the host trusts it and so must this stand-in. Node reads only
    // its bundled CAs unless NODE_EXTRA_CA_CERTS names more (set on the image below).
    if (existsSync(HOST_CA_BUNDLE)) copyFileSync(HOST_CA_BUNDLE, join(rootfs, 'etc/ssl/certs/ca-certificates.crt'));
    for (const dir of ['var/cache/apt', 'var/lib/apt/lists']) {
      rmSync(join(rootfs, dir), { recursive: true, force: true });
      mkdirSync(join(rootfs, dir), { recursive: true });
    }
    importRootfs(rootfs, tag, [`ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt`, 'CMD ["node"]']);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  return { tag, built: true };
}

/** nginx-unprivileged's layout on Debian's nginx: port 8080 in conf.d, uid 101, every writable path under /tmp. */
const UNPRIVILEGED_NGINX_CONF = `worker_processes auto;
pid /tmp/nginx.pid;
error_log /dev/stderr notice;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log /dev/stdout;
  sendfile on;
  client_body_temp_path /tmp/client_temp;
  proxy_temp_path /tmp/proxy_temp;
  fastcgi_temp_path /tmp/fastcgi_temp;
  uwsgi_temp_path /tmp/uwsgi_temp;
  scgi_temp_path /tmp/scgi_temp;
  include /etc/nginx/conf.d/*.conf;
}
`;

/**
 * The stand-in for `nginxinc/nginx-unprivileged` (the console image's server stage): Debian's
 * nginx and wget (the HEALTHCHECK's) on a minbase bookworm, configured as that image is: the
 * site in /etc/nginx/conf.d, files under /usr/share/nginx/html, running as uid 101.
 */
export function ensureNginxBase(): { tag: string; built: boolean } {
  const tag = 'localhost/gw-nginx-base:bookworm';
  if (imageExists(tag)) return { tag, built: false };
  const rootfs = mkdtempSync('/var/tmp/gw-nginx-base-');
  try {
    const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
    execFileSync('debootstrap', ['--variant=minbase', '--include=nginx-light,wget', 'bookworm', rootfs, mirror], { stdio: 'inherit' });
    writeFileSync(join(rootfs, 'etc/nginx/nginx.conf'), UNPRIVILEGED_NGINX_CONF);
    for (const dir of ['etc/nginx/sites-enabled', 'etc/nginx/conf.d', 'usr/share/nginx/html', 'var/cache/apt', 'var/lib/apt/lists']) {
      rmSync(join(rootfs, dir), { recursive: true, force: true });
      mkdirSync(join(rootfs, dir), { recursive: true });
    }
    importRootfs(rootfs, tag, ['USER 101:101', 'STOPSIGNAL SIGQUIT', 'CMD ["nginx", "-g", "daemon off;"]']);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  return { tag, built: true };
}

function importRootfs(rootfs: string, tag: string, changes: string[]): void {
  const tar = execFileSync('tar', ['-C', rootfs, '--numeric-owner', '-c', '.'], { maxBuffer: 2 * 1024 * 1024 * 1024 });
  const path = 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
  execFileSync('podman', ['import', ...[path, ...changes].flatMap((change) => ['--change', change]), '-', tag], {
    input: tar,
    stdio: ['pipe', 'ignore', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
}
