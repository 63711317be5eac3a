/**
 * A one-page PDF showing `lines` of text in Helvetica: the smallest well-formed file, with a
 * correct cross-reference table (the corpus pages as PDFs, `/pages/<slug>.pdf`, for the
 * gateway's file-parser plugin and web_fetch; tests use it for `file` content parts).
 */
export function minimalPdf(lines: string | readonly string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (char) => `\\${char}`);
  const shown = (typeof lines === 'string' ? [lines] : lines).map((line) => `(${escape(line)}) Tj`).join(' T* ');
  const stream = `BT /F1 12 Tf 14 TL 72 720 Td ${shown} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** The same as a base64 `data:` URL, as `file` content parts carry it. */
export function minimalPdfDataUrl(lines: string | readonly string[]): string {
  return `data:application/pdf;base64,${minimalPdf(lines).toString('base64')}`;
}
