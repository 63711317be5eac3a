import { describe, expect, it } from 'vitest';
import { minimalPdfDataUrl } from '@gw/testing';
import { filesAsText, parseFileParser } from './file-parser.plugin.js';

const noUrls = async () => {
  throw new Error('no URL expected');
};

describe('file-parser', () => {
  it('turns a PDF file part into a text part with its name and text (unpdf)', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summarise this.' },
          { type: 'file', file: { filename: 'invoice.pdf', file_data: minimalPdfDataUrl('Invoice 4711 total 99 EUR') } },
        ],
      },
    ];
    const parsed = await filesAsText(messages, noUrls);
    expect(parsed.files).toBe(1);
    expect(parsed.pages).toBe(1);
    expect(parsed.messages[0]!.content).toEqual([
      { type: 'text', text: 'Summarise this.' },
      { type: 'text', text: '<file name="invoice.pdf">\nInvoice 4711 total 99 EUR\n</file>' },
    ]);
  });

  it('reads a PDF given by URL through the reader it is handed (the SSRF-guarded fetcher)', async () => {
    const parsed = await filesAsText(
      [{ role: 'user', content: [{ type: 'file', file: { file_data: 'https://docs.test/a.pdf' } }] }],
      async (url) => `text of ${url}`,
    );
    expect(parsed.messages[0]!.content).toEqual([
      { type: 'text', text: '<file name="document.pdf">\ntext of https://docs.test/a.pdf\n</file>' },
    ]);
  });

  it('refuses a file that is not a PDF, and a broken one, naming the part', async () => {
    const notPdf = `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`;
    await expect(filesAsText([{ role: 'user', content: [{ type: 'file', file: { file_data: notPdf } }] }], noUrls)).rejects.toThrow(
      /messages\[0\]\.content\[0\]: file-parser reads PDFs/,
    );
    const broken = `data:application/pdf;base64,${Buffer.from('%PDF-1.4 garbage').toString('base64')}`;
    await expect(filesAsText([{ role: 'user', content: [{ type: 'file', file: { file_data: broken } }] }], noUrls)).rejects.toThrow(
      /the PDF could not be read/,
    );
  });

  it('reads pdf.engine: pdf-text / cloudflare-ai extract here, native passes files on, none decides per model', () => {
    expect(parseFileParser({ id: 'file-parser', pdf: { engine: 'pdf-text' } }, 'plugins[0]')).toEqual({ engine: 'text' });
    expect(parseFileParser({ id: 'file-parser', pdf: { engine: 'cloudflare-ai' } }, 'plugins[0]')).toEqual({ engine: 'text' });
    expect(parseFileParser({ id: 'file-parser', pdf: { engine: 'native' } }, 'plugins[0]')).toEqual({ engine: 'native' });
    expect(parseFileParser({ id: 'file-parser' }, 'plugins[0]')).toEqual({ engine: 'auto' });
  });
});
