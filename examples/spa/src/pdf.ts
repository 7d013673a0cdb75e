/** The `pdf` field is base-64: decoded into a Blob whose URL the browser can open or download. */

const KEEP_URL_MS = 60_000;

export function pdfUrl(base64: string): string {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
  // The tab that opened it has loaded it by then; the bytes should not stay in memory for good.
  setTimeout(() => URL.revokeObjectURL(url), KEEP_URL_MS);
  return url;
}

export function openPdf(base64: string): void {
  window.open(pdfUrl(base64), '_blank');
}

export function downloadPdf(base64: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = pdfUrl(base64);
  link.download = fileName;
  link.click();
}
