import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
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
    const tar = execFileSync('tar', ['-C', rootfs, '--numeric-owner', '-c', '.'], { maxBuffer: 2 * 1024 * 1024 * 1024 });
    execFileSync(
      'podman',
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        `ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt`,
        '--change',
        'CMD ["node"]',
        '-',
        tag,
      ],
      {
        input: tar,
        stdio: ['pipe', 'ignore', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  return { tag, built: true };
}
