import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '../helm.ts';

/**
 * The build context, frozen once per run: the tracked and untracked-but-not-ignored files of
 * the working tree. Building every target from the live tree would let a file written
 * meanwhile (a test run, an editor) change the context between targets and redo the whole
 * build stage for each.
 */
export function snapshotContext(): string {
  const dir = mkdtempSync('/var/tmp/gw-context-');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: WORKSPACE_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && existsSync(join(WORKSPACE_ROOT, file)));
  const archive = execFileSync('tar', ['-C', WORKSPACE_ROOT, '--null', '-T', '-', '-c', '-f', '-'], {
    input: files.join('\0'),
    maxBuffer: 1024 * 1024 * 1024,
  });
  execFileSync('tar', ['-C', dir, '-x', '-f', '-'], { input: archive });
  return dir;
}
