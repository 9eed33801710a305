import type { FieldChange } from '../../engine/model.js';
import type { JobReport } from '../../history/event-types.js';

const SAMPLE_LIMIT = 20;

/** "1 document", "2 documents". */
const documents = (n: number): string => `${n} ${n === 1 ? 'document' : 'documents'}`;
/** Long values (content, notes) are cut in samples so an event record stays small. */
const VALUE_LIMIT = 200;

/** Collects a job's report in constant memory: counters, per-field counts and the first few diffs. */
export function createReportBuilder(prefilter: Record<string, string>) {
  const report: JobReport = { matched: 0, changed: 0, unchanged: 0, fields: {}, samples: [], prefilter, summary: '' };
  return {
    add(document: number, title: string, matched: boolean, changes: Record<string, FieldChange>): void {
      if (!matched) return;
      report.matched++;
      const fields = Object.keys(changes);
      if (fields.length === 0) {
        report.unchanged++;
        return;
      }
      report.changed++;
      for (const f of fields) report.fields[f] = (report.fields[f] ?? 0) + 1;
      if (report.samples.length < SAMPLE_LIMIT) {
        const cut = Object.fromEntries(
          fields.map((f) => [f, { from: shorten(changes[f].from), to: shorten(changes[f].to) }]),
        );
        report.samples.push({ document, title: String(shorten(title)), changes: cut });
      }
    },
    finish(summary: { dryRun: boolean; processed: number; errors: number; kind: 'job' | 'revert' }): JobReport {
      const verb = summary.dryRun ? 'would change' : 'changed';
      const fields = Object.entries(report.fields)
        .sort((a, b) => b[1] - a[1])
        .map(([f, n]) => `${f} ${n}`)
        .join(', ');
      const parts =
        summary.kind === 'revert'
          ? [
              `${documents(summary.processed)} checked`,
              `${report.reverted ?? 0} restored`,
              `${report.skipped_edited ?? 0} left alone because they were edited since`,
              ...(report.not_restored?.gone ? [`${report.not_restored.gone} gone from the dms`] : []),
              ...(report.not_restored?.refused ? [`${report.not_restored.refused} refused by the dms`] : []),
            ]
          : [
              `${documents(summary.processed)} read`,
              `${report.matched} matched`,
              `${report.changed} ${verb}${fields ? ` (${fields})` : ''}`,
              `${report.unchanged} already as the rule wants`,
            ];
      if (summary.errors) parts.push(`${summary.errors} errors (see the traces with status error)`);
      report.summary = parts.join('; ') + '.';
      return report;
    },
    report,
  };
}

function shorten(value: unknown): unknown {
  if (typeof value === 'string' && value.length > VALUE_LIMIT) return `${value.slice(0, VALUE_LIMIT)}…`;
  if (Array.isArray(value) && value.length > 50) return [...(value as unknown[]).slice(0, 50), '…'];
  return value;
}
