import { GatewayError } from '@gw/errors';
import { looksLikePdf, pdfToText } from '../server-tools/pdf-text.js';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

/**
 * `pdf.engine` (SDK PDFParserOptions): `pdf-text` and `cloudflare-ai` (OpenRouter redirects the
 * first to the second) extract the text here, with unpdf; `native` sends the file to the model
 * as it is; without an engine, files go as they are to models that read files (catalog
 * `inputModalities` has `file`) and as text to the others. `mistral-ocr` needs an OCR service
 * this gateway does not have: 400.
 */
export interface FileParserConfig {
  engine: 'auto' | 'text' | 'native';
}

export function parseFileParser(raw: Json, where: string): FileParserConfig {
  const options = new PluginOptions(raw, where, 'file-parser', ['pdf']);
  const pdf = options.object('pdf');
  if (!pdf) return { engine: 'auto' };
  const pdfOptions = new PluginOptions(pdf, `${where}.pdf`, 'file-parser', ['engine']);
  const engine = pdfOptions.string('engine', { oneOf: ['pdf-text', 'cloudflare-ai', 'native', 'mistral-ocr'] });
  if (engine === 'mistral-ocr') {
    throw GatewayError.badRequest(
      `${where}.pdf.engine "mistral-ocr" is not supported here (no OCR service); use "pdf-text" for the PDF's text layer or "native"`,
      {
        reason: 'unsupported_plugin_option',
        plugin: 'file-parser',
        param: `${where}.pdf.engine`,
      },
    );
  }
  return { engine: engine === 'native' ? 'native' : engine === undefined ? 'auto' : 'text' };
}

/** Reads a file part's bytes: a `data:` URL here, an http(s) URL through the SSRF-guarded fetcher (which reads PDFs itself). */
export type UrlReader = (url: string) => Promise<string>;

/** PDFs above this are refused rather than parsed (pdf.js holds the whole file in memory). */
const MAX_PDF_BYTES = 20 * 1024 * 1024;

/**
 * The messages with each `file` part of a PDF replaced by a text part holding the file's name
 * and its text. A file that is not a PDF, or a PDF that cannot be read, is a 400 naming it:
 * the model would otherwise answer without it.
 */
export async function filesAsText(
  messages: readonly Json[],
  readUrl: UrlReader,
): Promise<{ messages: Json[]; files: number; pages: number }> {
  let files = 0;
  let pages = 0;
  const out: Json[] = [];
  for (const [position, message] of messages.entries()) {
    if (!Array.isArray(message.content) || !(message.content as Json[]).some((part) => part?.type === 'file')) {
      out.push(message);
      continue;
    }
    const content: Json[] = [];
    for (const [index, part] of (message.content as Json[]).entries()) {
      if (part?.type !== 'file') {
        content.push(part);
        continue;
      }
      const where = `messages[${position}].content[${index}]`;
      const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown };
      const name = typeof file.filename === 'string' ? file.filename : 'document.pdf';
      const data = typeof file.file_data === 'string' ? file.file_data : '';
      let text: string;
      if (/^https?:\/\//i.test(data)) {
        text = await readUrl(data).catch((error: Error) => {
          throw GatewayError.badRequest(`${where}: file-parser could not read ${data}: ${error.message}`, {
            reason: 'file_parse_failed',
            plugin: 'file-parser',
          });
        });
      } else {
        const parsed = await parsePdfDataUrl(data, where);
        text = parsed.text;
        pages += parsed.pages;
      }
      files++;
      content.push({ type: 'text', text: `<file name="${name}">\n${text}\n</file>` });
    }
    out.push({ ...message, content });
  }
  return { messages: out, files, pages };
}

async function parsePdfDataUrl(data: string, where: string): Promise<{ text: string; pages: number }> {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(data);
  if (!match || !match[2])
    throw GatewayError.badRequest(`${where}: file_data must be a base64 data: URL (data:application/pdf;base64,...) or an http(s) URL`, {
      reason: 'file_parse_failed',
      plugin: 'file-parser',
    });
  const bytes = Buffer.from(match[3]!, 'base64');
  if (bytes.length > MAX_PDF_BYTES)
    throw GatewayError.badRequest(`${where}: the file is larger than ${MAX_PDF_BYTES} bytes`, {
      reason: 'file_too_large',
      plugin: 'file-parser',
    });
  if (!looksLikePdf(bytes))
    throw GatewayError.badRequest(`${where}: file-parser reads PDFs; this file (${match[1] ?? 'unknown type'}) is not one`, {
      reason: 'unsupported_file_type',
      plugin: 'file-parser',
    });
  try {
    return await pdfToText(bytes);
  } catch (error) {
    throw GatewayError.badRequest(`${where}: the PDF could not be read: ${(error as Error).message}`, {
      reason: 'file_parse_failed',
      plugin: 'file-parser',
    });
  }
}

/** True when the conversation has a file part. */
export function hasFiles(messages: readonly Json[]): boolean {
  return messages.some((message) => Array.isArray(message.content) && (message.content as Json[]).some((part) => part?.type === 'file'));
}
