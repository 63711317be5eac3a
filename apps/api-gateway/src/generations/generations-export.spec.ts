import type { GenerationView } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvCell, csvLine } from './generations-export.js';

describe('generations export CSV', () => {
  it('quotes separators, quotes and line breaks, and leaves plain values as they are', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(0.000012)).toBe('0.000012');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(null)).toBe('');
  });

  it('keeps a spreadsheet from running a text as a formula, but not a negative number', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-1+2')).toBe("'-1+2");
    expect(csvCell(-1)).toBe('-1');
  });

  it('writes one line per generation, its columns in the header order', () => {
    const view = Object.fromEntries(CSV_COLUMNS.map((column, index) => [column, `v${index}`])) as unknown as GenerationView;
    expect(csvLine(view)).toBe(`${CSV_COLUMNS.map((_, index) => `v${index}`).join(',')}\r\n`);
  });
});
