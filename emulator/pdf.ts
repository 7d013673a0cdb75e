/**
 * Real PDFs made with pdf-lib: a statement's PDF shows its form, its boxes and their values, and a
 * watermark (`SANDBOX`, or `DRAFT` in production until finalized); a blank form shows the boxes
 * only. Metadata dates are fixed so that one statement state always gives the same bytes.
 */
import { PDFDocument, StandardFonts, degrees, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { FormSpec } from '../sources/statement-filing-service/catalogue';
import type { StatementData } from './validation';

const FIXED_DATE = new Date('2020-01-01T00:00:00Z');
const PAGE = { width: 612, height: 792, margin: 36 } as const;
const COLUMNS = 3;
const BOX_HEIGHT = 30;
const LABEL_SIZE = 6;
const VALUE_SIZE = 9;

interface Fonts { regular: PDFFont; bold: PDFFont }

/** Standard fonts encode WinAnsi only; anything else becomes '?'. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7E\xA0-\xFF]/g, '?');
}

/** No box or line holds more than this many characters; longer values are cut before measuring. */
const MAX_DRAWN_CHARS = 200;

/** The longest prefix that fits the width (binary search: values can be long, rendering blocks the loop). */
function fit(font: PDFFont, text: string, size: number, width: number): string {
  const full = printable(text.slice(0, MAX_DRAWN_CHARS));
  if (font.widthOfTextAtSize(full, size) <= width) return full;
  let lo = 0;
  let hi = full.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (font.widthOfTextAtSize(`${full.slice(0, mid)}.`, size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${full.slice(0, lo)}.`;
}

function formatValue(value: StatementData[string]): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join('; ');
  if (typeof value === 'boolean') return value ? 'X' : '';
  return String(value);
}

function drawHeader(page: PDFPage, fonts: Fonts, form: FormSpec, subtitle: string): void {
  const { margin, height } = PAGE;
  page.drawText(printable(form.metadata.name), { x: margin, y: height - margin - 14, size: 16, font: fonts.bold });
  page.drawText(fit(fonts.regular, form.metadata.title, 10, 400), { x: margin + 130, y: height - margin - 12, size: 10, font: fonts.regular });
  page.drawText(fit(fonts.regular, subtitle, 8, PAGE.width - 2 * margin), { x: margin, y: height - margin - 30, size: 8, font: fonts.regular });
}

function drawWatermark(page: PDFPage, fonts: Fonts, text: string): void {
  const size = 110;
  const width = fonts.bold.widthOfTextAtSize(text, size);
  page.drawText(text, {
    x: PAGE.width / 2 - (width / 2) * Math.SQRT1_2,
    y: PAGE.height / 2 - (width / 2) * Math.SQRT1_2,
    size, font: fonts.bold, rotate: degrees(45), color: rgb(0.85, 0.2, 0.2), opacity: 0.25,
  });
}

async function render(form: FormSpec, data: StatementData | null, subtitle: string, watermark: string | null): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(`${form.metadata.name}: ${form.metadata.title}`);
  doc.setProducer('Statement Filing Service emulator (pdf-lib)');
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  const boxWidth = (PAGE.width - 2 * PAGE.margin) / COLUMNS;
  const top = PAGE.height - PAGE.margin - 44;
  const rowsPerPage = Math.floor((top - PAGE.margin) / BOX_HEIGHT);
  let page = doc.addPage([PAGE.width, PAGE.height]);
  drawHeader(page, fonts, form, subtitle);
  for (const [i, def] of form.fields.entries()) {
    const slot = i % (rowsPerPage * COLUMNS);
    if (slot === 0 && i > 0) {
      page = doc.addPage([PAGE.width, PAGE.height]);
      drawHeader(page, fonts, form, subtitle);
    }
    const x = PAGE.margin + (slot % COLUMNS) * boxWidth;
    const y = top - Math.floor(slot / COLUMNS) * BOX_HEIGHT - BOX_HEIGHT;
    page.drawRectangle({ x, y, width: boxWidth, height: BOX_HEIGHT, borderColor: rgb(0.55, 0.1, 0.1), borderWidth: 0.5 });
    const label = `${def.boxNumber ? `${def.boxNumber} ` : ''}${def.boxLabel}`;
    page.drawText(fit(fonts.regular, label, LABEL_SIZE, boxWidth - 4), { x: x + 2, y: y + BOX_HEIGHT - 8, size: LABEL_SIZE, font: fonts.regular });
    const value = data ? formatValue(data[def.identifier]) : '';
    if (value) page.drawText(fit(fonts.regular, value, VALUE_SIZE, boxWidth - 6), { x: x + 3, y: y + 5, size: VALUE_SIZE, font: fonts.regular });
  }
  if (watermark) for (const p of doc.getPages()) drawWatermark(p, fonts, watermark);
  return doc.save({ useObjectStreams: false });
}

export async function renderStatementPdf(form: FormSpec, data: StatementData, otxId: string, watermark: string | null): Promise<string> {
  const subtitle = `Tax year ${formatValue(data.taxYear)}   otxId ${otxId}   uploaderId ${formatValue(data.uploaderId)}`;
  return Buffer.from(await render(form, data, subtitle, watermark)).toString('base64');
}

export async function renderBlankForm(form: FormSpec): Promise<string> {
  return Buffer.from(await render(form, null, `Blank form: ${form.metadata.description}`, null)).toString('base64');
}
