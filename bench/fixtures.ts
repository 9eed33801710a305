import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BENCH_RULE_ID = 'bench-invoices';

/** A rule that scans every document (a regex cannot be prefiltered) and tags the invoices. */
export const BENCH_RULES = `rules:
  - id: ${BENCH_RULE_ID}
    description: Tag invoices and read their total (benchmark)
    when:
      content: { matches: '(?i)rechnung|invoice' }
    extract:
      total: { regex: ['Rechnungsbetrag:\\s*([\\d.,]+)', 'Total:\\s*USD\\s*([\\d.,]+)'], type: money }
    actions:
      - add_tags: [bench-invoice]
        create_missing: true
`;

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dms-rules-bench-${prefix}-`));
}

export function rulesDirWith(files: Record<string, string>): string {
  const dir = tempDir('rules');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** `count` small independent rule files, for the reload benchmark. */
export function manyRuleFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const id = `rule-${String(i).padStart(4, '0')}`;
    files[`${id}.yml`] = `rules:
  - id: ${id}
    description: Generated rule ${i}
    when:
      all:
        - title: { contains: "Rechnung ${i}" }
        - content: { matches: '(?i)nr\\.?\\s*${i}\\b' }
    extract:
      amount: { regex: 'Summe\\s+([\\d.,]+)', type: money }
    actions:
      - set_title: "Rechnung ${i} {{ amount | default: 'ohne Betrag' }}"
`;
  }
  return files;
}
