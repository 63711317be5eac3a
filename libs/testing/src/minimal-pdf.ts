// One-page PDFs for tests of the file-parser plugin (the search simulator serves the same as `/pages/<slug>.pdf`).
export { minimalPdf, minimalPdfDataUrl } from '@gw/search-simulator';
