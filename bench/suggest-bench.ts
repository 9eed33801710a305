// `suggest` part of the bench: rule suggestions on a generated archive with a known truth, on the public
// SpamAssassin corpus, and the service's time and memory for one label of 10,000 documents.
import { generateLabelledArchive, HIDDEN_RULES, loadLabelledArchive } from '../tools/paperless-sim/labelled-archive.js';
import { api, withRig } from './service-process.js';
import { corpusDir, mails } from './spam-assassin.js';
import { figuresFor, indexOf, type LabelFigures } from './suggest-quality.js';
import { round, type Row } from './stats.js';

// The ordinary generated documents' seed tags, by id (server/dms/demo/seed/tags.json).
const SEED_TAGS: Record<number, string> = { 1: 'Posteingang', 2: 'Rechnung', 4: 'Steuer', 6: 'Vertrag', 8: 'Receipt' };
const HIDDEN_IDS: Record<string, number> = { Strom: 101, Hausbank: 102, Garten: 103, Reisen: 104 };

const row = (f: LabelFigures, note = ''): Row => ({
  measure: `${f.label} (${f.labelled} labelled)`,
  value: `${round(f.holdoutPrecision, 3)} / ${round(f.holdoutRecall, 3)}`,
  note: `F1 ${round(f.f1, 3)} vs best Paperless pattern ${round(f.paperlessF1, 3)} (${f.paperlessPattern}); rule: ${f.rule}${note}`,
});

/** Holdout precision / recall per label with ≥ 10 documents of a generated archive (`n` documents). */
export async function benchGeneratedArchive(n: number): Promise<Row[]> {
  const archive = generateLabelledArchive(n, { seed: 11, tagIds: HIDDEN_IDS });
  const names: Record<number, string> = {
    ...SEED_TAGS,
    ...Object.fromEntries(Object.entries(HIDDEN_IDS).map(([k, v]) => [v, k])),
  };
  const labelsOf = archive.documents.map((d) => d.tags.map((t) => names[t] ?? String(t)));
  const counts = labelCounts(labelsOf);
  const index = indexOf(archive.documents.map((d) => ({ ...d, correspondent: null, document_type: null })));
  const rows: Row[] = [];
  let met = 0;
  let labels = 0;
  for (const [label, c] of [...counts.entries()].sort()) {
    if (c < 10) continue;
    const f = await figuresFor(index, labelsOf, label);
    labels++;
    const ok = f.holdoutPrecision >= 0.95 && f.holdoutRecall >= 0.9 && f.f1 > f.paperlessF1;
    if (ok) met++;
    rows.push(row(f, label in HIDDEN_RULES ? `; hidden rule: ${HIDDEN_RULES[label]}` : ''));
  }
  rows.push({ measure: 'labels meeting 0.95 / 0.90 and beating Paperless', value: `${met} of ${labels}` });
  return rows;
}

/** Precision and recall ≥ 0.90 for how many of the 10 largest mailing lists of the SpamAssassin corpus. */
export async function benchSpamAssassin(): Promise<Row[]> {
  const dir = corpusDir();
  // One streaming read, as the service reads an archive: only the labels stay besides the index, not the text.
  const labelsOf: string[][] = [];
  const started = Date.now();
  const index = indexOf(
    (function* () {
      for (const m of mails(dir)) {
        labelsOf.push(m.labels);
        yield { ...m, correspondent: null, document_type: null };
      }
    })(),
  );
  const readMs = Date.now() - started;
  const largest = [...labelCounts(labelsOf).entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 10);
  const rows: Row[] = [];
  let met = 0;
  for (const [label] of largest) {
    const f = await figuresFor(index, labelsOf, label, 0.9);
    if (f.holdoutPrecision >= 0.9 && f.holdoutRecall >= 0.9) met++;
    rows.push(row(f));
  }
  rows.push({
    measure: `lists with precision and recall ≥ 0.90 (${labelsOf.length} messages)`,
    value: `${met} of 10`,
    note: `reading and indexing the text once: ${round(readMs / 1000, 1)} s; heap after: ${round(process.memoryUsage().heapUsed / 2 ** 20, 0)} MiB`,
  });
  return rows;
}

function labelCounts(labelsOf: ReadonlyArray<readonly string[]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const labels of labelsOf) for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return counts;
}

/**
 * The service end to end: `POST /api/suggestions` over `n` generated documents, three in a row: Strom on a cold
 * service, Reisen (a further label: the texts come from the service's cache), Strom again (the same work as the
 * first but for the cache). With each, the service's CPU seconds (all threads, and its main thread), which the
 * load of a shared machine changes far less than the wall time. `nodeArgs` go to the service's process (e.g.
 * `--cpu-prof`, to find where the time goes); `root`: another checkout's build instead of this one.
 */
export async function benchSuggestService(n: number, nodeArgs: string[] = [], root?: string): Promise<Row[]> {
  return withRig({ files: { 'empty.yml': 'rules: []\n' }, nodeArgs, root }, async ({ sim, service }) => {
    loadLabelledArchive(sim.store, n, { seed: 5 });
    const rows: Row[] = [];
    const runs: Array<[string, string]> = [
      ['Strom', 'cold'],
      ['Reisen', 'further label'],
      ['Strom', 'again'],
    ];
    for (const [tag, when] of runs) {
      const started = Date.now();
      const cpu = service.cpuSeconds();
      const mainCpu = service.mainThreadCpuSeconds();
      const res = await api<{ event_id: number }>(service.url, '/api/suggestions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: { tag } }),
      });
      let event: { status: string; error: string | null; report: { summary: string } | null };
      do {
        await new Promise((resolve) => setTimeout(resolve, 100));
        event = (await api<typeof event>(service.url, `/api/events/${res.body.event_id}`)).body;
      } while (event.status === 'queued' || event.status === 'running');
      rows.push({
        measure: `${n} documents, tag ${tag} (${when})`,
        value: `${round((Date.now() - started) / 1000, 1)} s`,
        note:
          `service CPU ${round(service.cpuSeconds() - cpu, 1)} s (main thread ${round(service.mainThreadCpuSeconds() - mainCpu, 1)} s); ` +
          `peak RSS ${round(service.peakRssMiB(), 0)} MiB; ${event.status}: ${event.report?.summary ?? event.error ?? ''}`,
      });
    }
    return rows;
  });
}
