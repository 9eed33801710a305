/** Small numeric helpers for the benchmark report. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function round(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

export interface Row {
  measure: string;
  value: string;
  note?: string;
}

export function printTable(title: string, rows: Row[]): void {
  const w1 = Math.max(7, ...rows.map((r) => r.measure.length));
  const w2 = Math.max(5, ...rows.map((r) => r.value.length));
  console.log(`\n## ${title}\n`);
  console.log(`| ${'measure'.padEnd(w1)} | ${'value'.padStart(w2)} | note |`);
  console.log(`|${'-'.repeat(w1 + 2)}|${'-'.repeat(w2 + 2)}|------|`);
  for (const r of rows) console.log(`| ${r.measure.padEnd(w1)} | ${r.value.padStart(w2)} | ${r.note ?? ''} |`);
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}
