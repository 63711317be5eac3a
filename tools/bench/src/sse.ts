/**
 * Counts the events of a `text/event-stream` body as it arrives, without keeping it: `data:`
 * events (the `[DONE]` sentinel included), whether `[DONE]` came, and error chunks (a chunk
 * with an `error` member: the gateway's mid-stream failure). It also tells when the
 * first byte of the first `data:` line arrived, which is what the bench times as the first
 * token: comments (`:`) and other fields are not a token.
 */
export class SseTally {
  /** `data:` events completed by a blank line, `[DONE]` included. */
  events = 0;
  /** `data: [DONE]` was seen. */
  done = false;
  /** Events whose JSON has a top-level `error`. */
  errors = 0;
  /** The first such event (its start), to say why a stream failed. */
  firstError: string | undefined;
  /** A byte of a `data:` line has arrived. */
  sawData = false;
  private partial = '';
  private data: string[] = [];

  /** Takes the next piece of the body; true when it holds the first byte of a `data:` line. */
  push(text: string): boolean {
    const first = !this.sawData;
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!;
    for (const raw of lines) this.line(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    // A line still arriving counts once its first byte can only begin a `data` field.
    if (!this.sawData && this.partial.length > 0 && 'data:'.startsWith(this.partial.slice(0, 5)) && !this.partial.startsWith(':'))
      this.sawData = true;
    return first && this.sawData;
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.event(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith('data:')) {
      this.sawData = true;
      const value = line.slice(5);
      this.data.push(value.startsWith(' ') ? value.slice(1) : value);
    }
  }

  private event(data: string): void {
    this.events += 1;
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    if (data.includes('"error"')) {
      try {
        if ((JSON.parse(data) as { error?: unknown }).error !== undefined) this.countError(data);
      } catch {
        this.countError(data); // not JSON: a broken stream counts as failed
      }
    }
  }

  private countError(data: string): void {
    this.errors += 1;
    this.firstError ??= data.slice(0, 300);
  }
}
