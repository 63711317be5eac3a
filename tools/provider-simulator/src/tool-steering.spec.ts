import { describe, expect, it } from 'vitest';
import { planMessage } from './anthropic-plan.ts';
import { planChat } from './openai-plan.ts';
import { DEFAULT_CONTEXT } from './faults.ts';

const tools = ['exec_command', 'view_image'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { cmd: { type: 'string' }, shell: { type: 'string' } } } },
}));
const plan = (text: string, toolChoice?: unknown) =>
  planChat(
    { messages: [{ role: 'user', content: text }], tools, tool_choice: toolChoice },
    { latency: 0, chunkDelay: 0, context: DEFAULT_CONTEXT },
    10,
  ).choices[0]!.toolCall;

describe('steered tool calls', () => {
  it('calls the named tool with exactly the given arguments', () => {
    expect(plan('Please call view_image with {"cmd": "cat note.txt"} now')).toMatchObject({
      name: 'view_image',
      arguments: '{"cmd":"cat note.txt"}',
    });
  });

  it('falls back to the first tool, its arguments from the schema, when the tool is not offered or not callable', () => {
    expect(plan('call run_it with {"cmd": "ls"}')).toMatchObject({ name: 'exec_command' });
    expect(plan('call view_image with {"cmd": "ls"}', { type: 'function', function: { name: 'exec_command' } })).toMatchObject({
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: 'call view_image with {"cmd": "ls"}', shell: 'call view_image with {"cmd": "ls"}' }),
    });
  });

  it('steers the Anthropic format the same way', () => {
    const plan = planMessage(
      {
        max_tokens: 100,
        messages: [{ role: 'user', content: 'call view_image with {"cmd": "ls"}' }],
        tools: tools.map((tool) => ({ name: tool.function.name, input_schema: tool.function.parameters })),
      },
      { latency: 0, chunkDelay: 0, context: DEFAULT_CONTEXT },
      10,
    );
    expect(plan.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'view_image', input: { cmd: 'ls' } });
  });
});
