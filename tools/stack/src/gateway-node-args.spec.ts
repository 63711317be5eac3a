import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@gw/db-tools';
import { describe, expect, it } from 'vitest';
import { GATEWAY_NODE_ARGS } from './stack.ts';

/** The exec-form ENTRYPOINT of one stage of docker/Dockerfile. */
function entrypointOf(dockerfile: string, stage: string): string[] {
  const start = dockerfile.search(new RegExp(`^FROM \\S+ AS ${stage}$`, 'm'));
  if (start === -1) throw new Error(`docker/Dockerfile has no stage ${stage}`);
  const rest = dockerfile.slice(start + 1);
  const next = rest.search(/^FROM /m);
  const body = next === -1 ? rest : rest.slice(0, next);
  const line = /^ENTRYPOINT (\[.*\])$/m.exec(body);
  if (!line) throw new Error(`stage ${stage} has no exec-form ENTRYPOINT`);
  return JSON.parse(line[1]!) as string[];
}

// The bench and the e2e tests measure the gateway as its image runs it: a flag
// changed on one side only would make the bench's RSS say nothing about a deployed replica.
describe('the gateway’s Node flags', () => {
  it('are the same in the dev/bench/e2e stack and in the api-gateway image', () => {
    const dockerfile = readFileSync(join(WORKSPACE_ROOT, 'docker/Dockerfile'), 'utf8');
    expect(entrypointOf(dockerfile, 'api-gateway')).toEqual(['node', ...GATEWAY_NODE_ARGS, 'apps/api-gateway/dist/main.js']);
  });

  it('are flags this Node starts with', () => {
    // Node refuses to start with an unknown V8 flag: a Node upgrade that drops one fails here first.
    const script = "require('node:v8').getHeapStatistics().heap_size_limit > 0";
    expect(execFileSync(process.execPath, [...GATEWAY_NODE_ARGS, '-p', script], { encoding: 'utf8' }).trim()).toBe('true');
  });
});
