import { extractText } from 'unpdf';

/** The text of a PDF, pages joined, read by unpdf (Mozilla's pdf.js, serverless build). */
export async function pdfToText(bytes: Uint8Array): Promise<{ text: string; pages: number }> {
  const { totalPages, text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return { text: text.replace(/[ \t]+\n/g, '\n').trim(), pages: totalPages };
}

/** True when the bytes start like a PDF (`%PDF-`). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}
