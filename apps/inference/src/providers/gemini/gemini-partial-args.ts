/** One streamed argument of a Vertex AI function call (`FunctionCall.partialArgs[]`). */
export interface PartialArg {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: string;
  willContinue?: boolean;
}

type Segment = string | number;

/** `$.foo.bar[0].data`, `$['a b']`: the RFC 9535 paths Vertex names a partial argument by. */
function jsonPathSegments(path: string): Segment[] {
  if (!path.startsWith('$')) throw new Error(`not a JSON path: ${path}`);
  const segments: Segment[] = [];
  const step = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  step.lastIndex = 1;
  while (step.lastIndex < path.length) {
    const at = step.lastIndex;
    const match = step.exec(path);
    if (!match) throw new Error(`unsupported JSON path at ${at}: ${path}`);
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push((match[3] ?? match[4]!).replace(/\\(.)/g, '$1'));
  }
  return segments;
}

interface Container {
  key: Segment | undefined;
  array: boolean;
  members: number;
}

/**
 * Writes a function call's arguments as JSON text while Vertex streams them by path, so each
 * piece becomes an OpenAI arguments delta at once: containers open and close as the paths move,
 * a string stays open while its `willContinue` says more of it follows.
 */
export class PartialArgsWriter {
  private readonly open: Container[] = [];
  private openString: string | undefined;

  /** The JSON text this argument adds. */
  write(arg: PartialArg): string {
    const path = arg.jsonPath ?? '$';
    if (this.openString === path && arg.stringValue !== undefined) return this.stringPiece(path, arg);
    let out = this.closeString();
    if (this.open.length === 0) {
      out += '{';
      this.open.push({ key: undefined, array: false, members: 0 });
    }
    const segments = jsonPathSegments(path);
    if (segments.length === 0) return out;
    const parent = segments.slice(0, -1);
    let common = 0;
    while (common < parent.length && common + 1 < this.open.length && this.open[common + 1]!.key === parent[common]) common += 1;
    while (this.open.length > common + 1) out += this.open.pop()!.array ? ']' : '}';
    for (let depth = common; depth < parent.length; depth += 1) {
      out += this.member(parent[depth]!);
      const array = typeof segments[depth + 1] === 'number';
      out += array ? '[' : '{';
      this.open.push({ key: parent[depth], array, members: 0 });
    }
    out += this.member(segments.at(-1)!);
    if (arg.stringValue !== undefined) return out + '"' + this.stringPiece(path, arg);
    if (arg.numberValue !== undefined) return out + JSON.stringify(arg.numberValue);
    if (arg.boolValue !== undefined) return out + String(arg.boolValue);
    return out + 'null';
  }

  /** What closes the arguments: the open string and containers (`{}` when none came). */
  end(): string {
    let out = this.closeString();
    if (this.open.length === 0) return '{}';
    while (this.open.length > 0) out += this.open.pop()!.array ? ']' : '}';
    return out;
  }

  private stringPiece(path: string, arg: PartialArg): string {
    const text = JSON.stringify(arg.stringValue ?? '').slice(1, -1);
    if (arg.willContinue === true) {
      this.openString = path;
      return text;
    }
    this.openString = undefined;
    return `${text}"`;
  }

  private closeString(): string {
    if (this.openString === undefined) return '';
    this.openString = undefined;
    return '"';
  }

  private member(key: Segment): string {
    const container = this.open.at(-1)!;
    const comma = container.members > 0 ? ',' : '';
    container.members += 1;
    return container.array ? comma : `${comma}${JSON.stringify(String(key))}:`;
  }
}
