type Json = Record<string, unknown>;

/**
 * Chat's tool messages carry text only (OpenAI's API, and the hosts and formats that copy it):
 * the images and files of a tool result go in one user message right after the run of tool
 * messages (a tool message must follow its call directly), each set introduced by the call it
 * came from, and the tool message keeps its text.
 */
export function toolMediaAsUserTurns(messages: unknown): unknown {
  if (!Array.isArray(messages) || !messages.some(holdsMedia)) return messages;
  const out: Json[] = [];
  let attached: Json[] = [];
  const flush = (): void => {
    if (attached.length > 0) out.push({ role: 'user', content: attached });
    attached = [];
  };
  for (const message of messages as Json[]) {
    if (!holdsMedia(message)) {
      if (message.role !== 'tool') flush();
      out.push(message);
      continue;
    }
    const parts = message.content as Json[];
    const text = parts.filter((part) => part.type === 'text');
    const media = parts.filter((part) => part.type !== 'text');
    out.push({
      ...message,
      content:
        text.length > 0 ? text : `The result is attached in the next message (${media.length} part${media.length === 1 ? '' : 's'}).`,
    });
    attached.push({ type: 'text', text: `Attached to the result of tool call ${String(message.tool_call_id)}:` }, ...media);
  }
  flush();
  return out;
}

function holdsMedia(message: unknown): boolean {
  const m = message as Json | null;
  return m?.role === 'tool' && Array.isArray(m.content) && (m.content as Json[]).some((part) => part?.type !== 'text');
}
