import { describe, expect, it } from 'vitest';
import { steeredTool, steeredToolInput, workingDirectoryOf } from './steered-tool.ts';

const offered = ['Agent', 'Bash', 'Read', 'Write'];
const readSchema = {
  type: 'object',
  properties: { file_path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
  required: ['file_path'],
};

describe('steering the simulated model to a tool', () => {
  it('by "use the X tool", with the path written after it', () => {
    expect(steeredTool('Please use the read tool to open /tmp/x/note.txt.', offered)).toEqual({ name: 'Read', path: '/tmp/x/note.txt' });
    expect(steeredTool('Use the Fetch tool on /tmp/x', offered)).toBeUndefined();
  });

  it('by the tool name as a word followed by a file path, the last mention winning', () => {
    expect(steeredTool('Read note.txt and tell me the secret word.', offered)).toEqual({ name: 'Read', path: 'note.txt' });
    expect(steeredTool('read the file /tmp/a/b.md please', offered)).toEqual({ name: 'Read', path: '/tmp/a/b.md' });
    expect(steeredTool('Read a.txt, then write b.txt', offered)).toEqual({ name: 'Write', path: 'b.txt' });
    expect(steeredTool('Read me a story about gateways.', offered)).toBeUndefined();
  });

  it('fills the required properties only, a relative path joined to the stated working directory', () => {
    const instructions = 'Environment\n - Primary working directory: /tmp/cc-cwd\n - Platform: linux';
    expect(workingDirectoryOf(instructions)).toBe('/tmp/cc-cwd');
    const steered = { name: 'Read', path: 'docs/note.txt' };
    expect(steeredToolInput(readSchema, 'x', steered, '/tmp/cc-cwd')).toEqual({ file_path: '/tmp/cc-cwd/docs/note.txt' });
    expect(steeredToolInput(readSchema, 'x', steered)).toEqual({ file_path: 'docs/note.txt' });
    expect(steeredToolInput(readSchema, 'x', { name: 'Read', path: '/abs/n.txt' }, '/tmp/cc-cwd')).toEqual({ file_path: '/abs/n.txt' });
  });
});
