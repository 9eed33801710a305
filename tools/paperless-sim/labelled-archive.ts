import type { SimDocument } from '../../server/dms/demo/sim-types.js';
import type { SimStore } from '../../server/dms/demo/store.js';
import { generateDocuments, plainTag, seededRandom } from './generator.js';

// An archive whose tags follow hidden rules a learner should find again (docs/suggestions.md): a letterhead, an
// identifier, a combination of two words and a tag that spans correspondents, with OCR noise, a few wrong labels
// and distractors that mention a sender without coming from it.

/** The hidden rule behind each tag, in words (what a test or the bench compares a suggestion with). */
export const HIDDEN_RULES: Record<string, string> = {
  Strom: 'letterhead of Stadtwerke Nordhafen (Kraftwerkstraße 3)',
  Hausbank: 'the IBAN DE89 3704 0044 0532 0130 00',
  Garten: 'both "Rechnung" and "Garten"',
  Reisen: 'a ticket or booking from Deutsche Bahn, Lufthansa or Hotel Seeblick',
};

export interface LabelledArchive {
  documents: SimDocument[];
  /** Tag name → ids of the documents that truly follow its hidden rule (before wrong labels). */
  truth: Record<string, number[]>;
  /** Tag name → ids labelled wrongly on purpose: left without the tag, or given it. */
  wrong: Record<string, { missing: number[]; extra: number[] }>;
}

export interface LabelledArchiveOptions {
  seed?: number;
  startId?: number;
  /** Share of words with two characters swapped (default 0.1). */
  ocrNoise?: number;
  /** Share of each tag's documents labelled wrongly, half left out and half added (default 0.04). */
  wrongLabels?: number;
  /** Tag name → tag id in the store the documents go to. */
  tagIds: Record<string, number>;
}

type Maker = (pick: <T>(list: T[]) => T, rnd: () => number) => string;

const NORDHAFEN_HEAD = 'Stadtwerke Nordhafen GmbH · Kraftwerkstraße 3 · 20457 Hamburg';
const strom: Maker = (pick, rnd) =>
  `${NORDHAFEN_HEAD}\n${pick(['Ihre Stromrechnung', 'Jahresabrechnung Strom', 'Abschlagsplan Strom'])}\n` +
  `${pick(['Stromverbrauch', 'Zählerstand', 'Verbrauch'])}: ${Math.floor(1000 + rnd() * 4000)} kWh\n` +
  `${pick(['Bitte überweisen Sie den Betrag', 'Der Betrag wird abgebucht', 'Vielen Dank für Ihre Zahlung'])}.`;
const mentionsNordhafen: Maker = (pick) =>
  `Sparkasse Holstein\nKontoauszug\n${pick(['Lastschrift', 'Überweisung'])} an Stadtwerke Nordhafen GmbH\n` +
  pick(['Miete Juni', 'Gehalt', 'Versicherung']);
const IBAN = 'DE89 3704 0044 0532 0130 00';
const hausbank: Maker = (pick, rnd) =>
  `${pick(['Kontoauszug', 'Umsatzübersicht', 'Mitteilung zu Ihrem Konto'])} Nr. ${Math.floor(rnd() * 90) + 1}\n` +
  `IBAN: ${IBAN}\n${pick(['Alter Kontostand', 'Neuer Saldo', 'Zinsen'])} ${(rnd() * 5000).toFixed(2)} EUR`;
const otherBank: Maker = (pick, rnd) =>
  `${pick(['Kontoauszug', 'Umsatzübersicht'])} Nr. ${Math.floor(rnd() * 90) + 1}\n` +
  `IBAN: DE12 5001 0517 ${Math.floor(1000 + rnd() * 8999)} 3249 31\nNeuer Saldo ${(rnd() * 5000).toFixed(2)} EUR`;
const garten: Maker = (pick, rnd) =>
  `${pick(['Grünwerk Landschaftsbau', 'Gärtnerei Blattgrün', 'Baumschule Lindner'])}\nRechnung Nr. G-${Math.floor(rnd() * 9999)}\n` +
  `${pick(['Heckenschnitt im Garten', 'Rasenpflege Garten', 'Garten: Neupflanzung Obstbäume'])}\nSumme ${(rnd() * 900).toFixed(2)} EUR`;
const gartenLetter: Maker = (pick) =>
  `Kleingartenverein Morgenrot e.V.\n${pick(['Einladung zum Sommerfest im Garten', 'Garten-Rundbrief', 'Protokoll der Versammlung: Garten 12'])}`;
const reisen: Maker = (pick, rnd) =>
  pick([
    `Deutsche Bahn AG\nIhre Fahrkarte\nICE ${Math.floor(rnd() * 900)} Hamburg → München\nBuchungsnummer ${Math.floor(rnd() * 1e8)}`,
    `Lufthansa\nIhr Flugticket\nFlug LH${Math.floor(rnd() * 2000)} Frankfurt – Lissabon\nBuchungsbestätigung`,
    `Hotel Seeblick\nBuchungsbestätigung\n${1 + Math.floor(rnd() * 5)} Übernachtungen mit Frühstück`,
  ]);
const bahnCard: Maker = (pick) =>
  `Deutsche Bahn AG\n${pick(['Ihre BahnCard 25 Rechnung', 'Änderung Ihrer Kundendaten', 'Newsletter: neue Strecken'])}`;

interface Recipe {
  tag: string | null;
  make: Maker;
  share: number;
}

const RECIPES: Recipe[] = [
  { tag: 'Strom', make: strom, share: 0.07 },
  { tag: null, make: mentionsNordhafen, share: 0.03 },
  { tag: 'Hausbank', make: hausbank, share: 0.06 },
  { tag: null, make: otherBank, share: 0.04 },
  { tag: 'Garten', make: garten, share: 0.05 },
  { tag: null, make: gartenLetter, share: 0.03 },
  { tag: 'Reisen', make: reisen, share: 0.07 },
  { tag: null, make: bahnCard, share: 0.03 },
];

/** Swaps two neighbouring letters in about `share` of the words, as OCR garbles a scan. */
export function ocrNoise(text: string, share: number, rnd: () => number): string {
  return text.replace(/\p{L}{4,}/gu, (word) => {
    if (rnd() >= share) return word;
    const i = 1 + Math.floor(rnd() * (word.length - 2));
    return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  });
}

/**
 * `n` documents: about 57 % the generator's ordinary ones, the rest made by the recipes above (same seed → same
 * archive). Tags other than the hidden rules' keep the ordinary documents' seed tags.
 */
export function generateLabelledArchive(n: number, options: LabelledArchiveOptions): LabelledArchive {
  const rnd = seededRandom((options.seed ?? 1) * 7919 + 17);
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)];
  const startId = options.startId ?? 1000;
  const base = generateDocuments(n, options.seed ?? 1, startId);
  const truth: Record<string, number[]> = {};
  const noise = options.ocrNoise ?? 0.1;
  for (const doc of base) {
    let r = rnd();
    const recipe = RECIPES.find((x) => (r -= x.share) < 0);
    if (recipe) {
      doc.content = recipe.make(pick, rnd);
      doc.title = doc.content.split('\n')[1]?.slice(0, 60) ?? doc.title;
      doc.correspondent = null;
      doc.document_type = null;
      doc.tags = [];
      if (recipe.tag) {
        (truth[recipe.tag] ??= []).push(doc.id);
        doc.tags = [options.tagIds[recipe.tag]];
      }
    }
    doc.content = ocrNoise(doc.content, noise, rnd);
  }
  const wrong: LabelledArchive['wrong'] = {};
  const share = options.wrongLabels ?? 0.04;
  for (const [tag, ids] of Object.entries(truth)) {
    const flips = Math.max(1, Math.round((ids.length * share) / 2));
    const missing = ids.filter(() => rnd() < 0.5).slice(0, flips);
    const others = base.filter((d) => !ids.includes(d.id));
    const extra = Array.from({ length: flips }, () => pick(others).id).filter((id, i, all) => all.indexOf(id) === i);
    for (const doc of base) {
      if (missing.includes(doc.id)) doc.tags = doc.tags.filter((t) => t !== options.tagIds[tag]);
      if (extra.includes(doc.id)) doc.tags = [...doc.tags, options.tagIds[tag]];
    }
    wrong[tag] = { missing, extra };
  }
  return { documents: base, truth, wrong };
}

/** Creates the hidden rules' tags in the store and loads a labelled archive of `n` documents into it. */
export function loadLabelledArchive(store: SimStore, n: number, options: Omit<LabelledArchiveOptions, 'tagIds'> = {}) {
  const tagIds: Record<string, number> = {};
  for (const name of Object.keys(HIDDEN_RULES)) {
    const existing = store.objects.tags.find((t) => t.name === name);
    tagIds[name] = existing?.id ?? store.insertObject('tags', plainTag(name)).id;
  }
  const archive = generateLabelledArchive(n, { ...options, tagIds });
  for (const doc of archive.documents) store.insertDocument(doc);
  return { ...archive, tagIds };
}
