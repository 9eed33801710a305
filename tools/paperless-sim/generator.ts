import { slugify } from '../../server/dms/demo/routes-objects.js';
import type { SimDocument, SimObject } from '../../server/dms/demo/sim-types.js';

// Synthetic documents for benchmarks and the demo: German/English invoices, receipts, letters, contracts
// and tax notices, consistent with the seed vocabulary (correspondents 1–5, types 1–4, tags 1–9, fields 1–4).

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Company {
  name: string;
  /** Seed correspondent id, when the seed vocabulary has this company. */
  correspondent: number | null;
  city: string;
  lang: 'de' | 'en';
  goods: string[];
}

const COMPANIES: Company[] = [
  {
    name: 'Stadtwerke München',
    correspondent: 1,
    city: '80992 München',
    lang: 'de',
    goods: ['Strom', 'Gas', 'Fernwärme'],
  },
  {
    name: 'Telekom Deutschland GmbH',
    correspondent: 2,
    city: '53113 Bonn',
    lang: 'de',
    goods: ['MagentaZuhause L', 'Mobilfunk', 'Festnetz'],
  },
  {
    name: 'Allianz Versicherungs-AG',
    correspondent: 3,
    city: '80802 München',
    lang: 'de',
    goods: ['Kfz-Versicherung', 'Hausrat', 'Haftpflicht'],
  },
  {
    name: 'Finanzamt München',
    correspondent: 4,
    city: '80335 München',
    lang: 'de',
    goods: ['Einkommensteuer', 'Vorauszahlung'],
  },
  {
    name: 'ACME Corp.',
    correspondent: 5,
    city: 'Springfield, IL 62701',
    lang: 'en',
    goods: ['Consulting', 'Software license', 'Support plan'],
  },
  {
    name: 'Vodafone GmbH',
    correspondent: null,
    city: '40549 Düsseldorf',
    lang: 'de',
    goods: ['GigaZuhause', 'Red Mobil'],
  },
  { name: 'REWE Markt GmbH', correspondent: null, city: '50668 Köln', lang: 'de', goods: ['Lebensmittel', 'Getränke'] },
  {
    name: 'Amazon EU S.à r.l.',
    correspondent: null,
    city: 'L-1855 Luxembourg',
    lang: 'en',
    goods: ['Office chair', 'USB-C cable', 'Books'],
  },
  {
    name: 'Deutsche Bahn AG',
    correspondent: null,
    city: '10557 Berlin',
    lang: 'de',
    goods: ['BahnCard 25', 'Fahrkarte ICE'],
  },
  {
    name: 'Staples Inc.',
    correspondent: null,
    city: 'Framingham, MA 01702',
    lang: 'en',
    goods: ['Printer paper', 'Toner', 'Stapler'],
  },
  {
    name: 'Techniker Krankenkasse',
    correspondent: null,
    city: '22305 Hamburg',
    lang: 'de',
    goods: ['Beitrag', 'Zusatzbeitrag'],
  },
  {
    name: 'Northwind Traders Ltd.',
    correspondent: null,
    city: 'London EC1A 1BB',
    lang: 'en',
    goods: ['Hardware', 'Maintenance'],
  },
];

type Kind = 'invoice' | 'receipt' | 'letter' | 'contract' | 'tax';
const KIND_TYPE: Record<Kind, number | null> = { invoice: 1, contract: 2, receipt: 3, tax: 4, letter: null };
const MONTHS_DE = [
  'Januar',
  'Februar',
  'März',
  'April',
  'Mai',
  'Juni',
  'Juli',
  'August',
  'September',
  'Oktober',
  'November',
  'Dezember',
];
const MONTHS_EN = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number) => String(n).padStart(2, '0');
const euro = (n: number) =>
  n
    .toFixed(2)
    .replace('.', ',')
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
const dollar = (n: number) => n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function content(kind: Kind, c: Company, amount: number, date: Date, number: string, item: string): string {
  const de = `${pad(date.getUTCDate())}.${pad(date.getUTCMonth() + 1)}.${date.getUTCFullYear()}`;
  const en = `${MONTHS_EN[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
  const net = amount / 1.19;
  if (c.lang === 'en') {
    if (kind === 'receipt')
      return `${c.name}\n${c.city}\nRECEIPT\nDate: ${en}\n1 x ${item}  ${dollar(amount)}\nTotal USD ${dollar(amount)}\nPaid by card. Thank you!`;
    if (kind === 'contract')
      return `${c.name}\n${c.city}\n${item} Agreement No. ${number}\nEffective date: ${en}\nThe parties agree to the terms below. Annual fee: USD ${dollar(amount)}.\nTerm: 12 months, renewing automatically.`;
    if (kind === 'letter')
      return `${c.name}\n${c.city}\n${en}\nDear customer,\nwe would like to inform you about changes to your ${item} account.\nReference: ${number}\nKind regards`;
    return `${c.name}\n${c.city}\nINVOICE\nInvoice No. ${number}\nInvoice date: ${en}\n${item}  USD ${dollar(amount)}\nTotal: USD ${dollar(amount)}\nPayment due within 30 days.`;
  }
  if (kind === 'receipt')
    return `${c.name}\n${c.city}\nKassenbon\n${item}  ${euro(amount)}\nSUMME EUR ${euro(amount)}\nBar bezahlt ${de}\nVielen Dank für Ihren Einkauf!`;
  if (kind === 'contract')
    return `${c.name}\n${c.city}\nVertrag Nr. ${number} über ${item}\nVertragsbeginn: ${de}\nMonatlicher Beitrag: ${euro(amount / 12)} EUR\nLaufzeit 12 Monate, Kündigung mit einer Frist von drei Monaten.`;
  if (kind === 'tax')
    return `${c.name}\n${c.city}\nBescheid für ${date.getUTCFullYear() - 1} über ${item}\nSteuernummer ${number}\nDatum: ${de}\nFestgesetzt werden ${euro(amount)} EUR.\nBitte zahlen Sie den Betrag bis zum Fälligkeitstag.`;
  if (kind === 'letter')
    return `${c.name}\n${c.city}\n${de}\nSehr geehrte Damen und Herren,\nwir informieren Sie über Änderungen zu Ihrem Vertrag ${item}.\nZeichen: ${number}\nMit freundlichen Grüßen`;
  return `${c.name}\n${c.city}\nRechnung Nr. ${number}\nRechnungsdatum: ${de}\n${item}: ${euro(net)} EUR netto\nUmsatzsteuer 19 %: ${euro(amount - net)} EUR\nRechnungsbetrag: ${euro(amount)} EUR\nZahlbar innerhalb von 14 Tagen.`;
}

function title(kind: Kind, c: Company, date: Date, number: string, item: string): string {
  const month = c.lang === 'de' ? MONTHS_DE[date.getUTCMonth()] : MONTHS_EN[date.getUTCMonth()];
  const short = c.name.split(' ')[0];
  if (kind === 'invoice')
    return c.lang === 'de' ? `${short} Rechnung ${month} ${date.getUTCFullYear()}` : `Invoice ${number}`;
  if (kind === 'receipt')
    return c.lang === 'de'
      ? `Kassenbon ${short} ${pad(date.getUTCDate())}.${pad(date.getUTCMonth() + 1)}.${date.getUTCFullYear()}`
      : `Receipt ${item}`;
  if (kind === 'contract') return c.lang === 'de' ? `${item} Vertrag ${short}` : `${item} Agreement`;
  if (kind === 'tax') return `${item}bescheid ${date.getUTCFullYear() - 1}`;
  return c.lang === 'de' ? `Schreiben ${short} ${month} ${date.getUTCFullYear()}` : `Letter from ${short}`;
}

// Realistic documents (the benchmark's "fast realistic" profile): what a scanned archive looks like to
// the service, 2–20 KB of OCR text, 5–10 tags, 3–6 custom fields and a few notes. The simulator adds the
// vocabulary they name (REALISTIC_TAGS, REALISTIC_FIELDS) when it generates them.
export const REALISTIC_TAG_COUNT = 24;
/** Custom fields beyond the seed's four (ids 1–4), added with realistic documents. */
export const REALISTIC_FIELDS = [
  { id: 5, name: 'Kundennummer', data_type: 'string' },
  { id: 6, name: 'Seiten geprüft', data_type: 'integer' },
  { id: 7, name: 'Steuerrelevant', data_type: 'boolean' },
] as const;

/** A tag as generated archives add it: no matching of Paperless's own, not an inbox tag, unowned. */
export function plainTag(name: string): Omit<SimObject, 'id'> & Pick<SimObject, 'name'> {
  return {
    name,
    slug: slugify(name),
    color: '#a6cee3',
    text_color: '#000000',
    match: '',
    matching_algorithm: 0,
    is_insensitive: true,
    is_inbox_tag: false,
    owner: null,
    parent: null,
  };
}
const SELECT_OPTIONS = ['Kq3ZP8rWmTn2xYbD', 'h7LcV2sQe9RkBw4M', 'Zt5yN1gUo8XjFa6P'];
const FILLER = (
  'Sehr geehrte Kundin sehr geehrter Kunde gemäß unseren Allgemeinen Geschäftsbedingungen berechnen wir die ' +
  'folgenden Leistungen für den genannten Zeitraum the undersigned confirms receipt of the goods listed above ' +
  'Position Menge Einzelpreis Gesamtpreis Artikelnummer Lieferschein Bestellung Kundennummer Bankverbindung IBAN ' +
  'DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX Sitz der Gesellschaft Registergericht Amtsgericht HRB Geschäftsführer ' +
  'payment terms net thirty days late fees apply page of continued overleaf Seite von Fortsetzung umseitig'
).split(' ');

let ocrPool: string[] | null = null;

/** OCR-like text: 16 blocks of 20 KB made once, so 100,000 documents share them instead of holding 1 GB. */
function ocrText(rnd: () => number, bytes: number): string {
  ocrPool ??= Array.from({ length: 16 }, (_, i) => {
    const own = seededRandom(1000 + i);
    const lines: string[] = [];
    for (let size = 0; size < 20 * 1024;) {
      const words: string[] = [];
      for (let w = 4 + Math.floor(own() * 10); w > 0; w--) words.push(FILLER[Math.floor(own() * FILLER.length)]);
      lines.push(words.join(' '));
      size += lines.at(-1)!.length + 1;
    }
    return lines.join('\n');
  });
  const block = ocrPool[Math.floor(rnd() * ocrPool.length)];
  const length = Math.max(0, Math.min(block.length, bytes));
  const start = Math.floor(rnd() * (block.length - length));
  return block.slice(start, start + length);
}

function realisticFieldValue(rnd: () => number, field: number, amount: number, currency: string, created: string) {
  switch (field) {
    case 1:
      return `${currency}${amount.toFixed(2)}`;
    case 2:
      return created;
    case 3:
      return SELECT_OPTIONS[Math.floor(rnd() * SELECT_OPTIONS.length)];
    case 4:
      return `RE-${Math.floor(rnd() * 1e7)}`;
    case 5:
      return `K${String(Math.floor(rnd() * 1e6)).padStart(6, '0')}`;
    case 6:
      return 1 + Math.floor(rnd() * 12);
    default:
      return rnd() < 0.5;
  }
}

/** Makes a generated document realistic in size and shape (see REALISTIC_FIELDS); notes get ids from `noteId`. */
function realistic(doc: SimDocument, rnd: () => number, amount: number, noteId: () => number): SimDocument {
  const tags = new Set(doc.tags);
  const want = 5 + Math.floor(rnd() * 6);
  while (tags.size < want) tags.add(1 + Math.floor(rnd() * REALISTIC_TAG_COUNT));
  const fields = new Set<number>();
  const wantFields = 3 + Math.floor(rnd() * 4);
  while (fields.size < wantFields) fields.add(1 + Math.floor(rnd() * 7));
  const currency = doc.content.includes('USD') ? 'USD' : 'EUR';
  const notes = Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => ({
    id: noteId(),
    note: ocrText(rnd, 40 + Math.floor(rnd() * 200)),
    created: `${doc.created}T1${i}:00:00.000000+01:00`,
    user: { id: 3, username: 'anna', first_name: 'Anna', last_name: '' },
  }));
  return {
    ...doc,
    content: `${doc.content}\n${ocrText(rnd, 2048 + Math.floor(rnd() * 18 * 1024) - doc.content.length)}`,
    tags: [...tags].sort((a, b) => a - b),
    notes,
    custom_fields: [...fields]
      .sort((a, b) => a - b)
      .map((field) => ({ field, value: realisticFieldValue(rnd, field, amount, currency, doc.created) })),
  };
}

/**
 * `n` deterministic synthetic documents (same `seed` → same documents), ids from `startId` on. With
 * `realistic`, each is as large and rich as a scanned archive's; `noteId` numbers their notes.
 */
export function generateDocuments(
  n: number,
  seed = 1,
  startId = 1000,
  options: { realistic?: boolean; noteId?: () => number } = {},
): SimDocument[] {
  let notes = 0;
  const noteId = options.noteId ?? (() => ++notes);
  const rnd = seededRandom(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)];
  const docs: SimDocument[] = [];
  const start = Date.UTC(2022, 0, 1);
  const span = Date.UTC(2025, 11, 31) - start;
  for (let i = 0; i < n; i++) {
    const c = pick(COMPANIES);
    const kind: Kind =
      c.correspondent === 4
        ? 'tax'
        : pick(['invoice', 'invoice', 'invoice', 'receipt', 'letter', 'contract'] as Kind[]);
    const date = new Date(start + Math.floor(rnd() * span));
    const amount = Math.round((5 + rnd() * (kind === 'receipt' ? 150 : 2500)) * 100) / 100;
    const number = `${c.name.slice(0, 3).toUpperCase()}-${date.getUTCFullYear()}-${String(Math.floor(rnd() * 1e6)).padStart(6, '0')}`;
    const item = pick(c.goods);
    const created = date.toISOString().slice(0, 10);
    const added = new Date(date.getTime() + Math.floor(rnd() * 5 * 86_400_000)).toISOString();
    const inbox = rnd() < 0.3;
    const tags = [
      ...(inbox ? [1] : []),
      ...(kind === 'invoice' ? [2] : kind === 'receipt' ? [8] : kind === 'contract' ? [6] : kind === 'tax' ? [4] : []),
    ];
    const known = rnd() < 0.7;
    const currency = c.lang === 'en' ? 'USD' : 'EUR';
    const doc: SimDocument = {
      id: startId + i,
      correspondent: known ? c.correspondent : null,
      document_type: known ? KIND_TYPE[kind] : null,
      storage_path: known && kind !== 'letter' ? (kind === 'contract' ? 2 : 1) : null,
      title: title(kind, c, date, number, item),
      content: content(kind, c, amount, date, number, item),
      tags,
      created,
      modified: added,
      added,
      archive_serial_number: null,
      original_file_name: `scan_${created}_${i}.pdf`,
      has_archive: true,
      owner: null,
      notes: [],
      custom_fields:
        kind === 'invoice' && known && rnd() < 0.5
          ? [
              { value: `${currency}${amount.toFixed(2)}`, field: 1 },
              { value: number, field: 4 },
            ]
          : [],
      page_count: 1 + Math.floor(rnd() * 3),
      mime_type: 'application/pdf',
      versions: null,
    };
    docs.push(options.realistic ? realistic(doc, rnd, amount, noteId) : doc);
  }
  return docs;
}
