// `node tools/deploy/bin/helm.ts <args>`: the project's pinned helm, for lint/template by hand.
import { execFileSync } from 'node:child_process';
import { helmBinary } from '../src/helm.ts';

execFileSync(helmBinary(), process.argv.slice(2), { stdio: 'inherit' });
