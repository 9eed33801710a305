/** "Did you mean": the known names nearest to a misspelt one, by edit distance (case ignored). */

/** Edit distance: insertions, deletions, substitutions and swaps of two neighbours (`titel`) each count one. */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j], before[j - 2] + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * Up to `limit` candidates near enough to `name` to be what was meant, nearest first. Short names allow one
 * edit, longer ones up to three (`Betrg` → `Betrag`, `corespondent` → `correspondent`), so `tax` never
 * suggests `tags` and a long name still finds its match under two slips; a cut name finds its whole.
 */
export function nearestNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const allowed = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  const lower = name.toLowerCase();
  return [...new Set(candidates)]
    .map((word) => {
      const other = word.toLowerCase();
      // A name cut short (`add` for `added`) is as near as one slip, however much is missing.
      const cut = lower.length >= 3 && other.startsWith(lower);
      return { word, distance: cut ? 1 : editDistance(lower, other) };
    })
    .filter((c) => c.distance <= allowed && c.word !== name)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, limit)
    .map((c) => c.word);
}

/** ` Did you mean "a" or "b"?` for a message, or '' when nothing is near. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const near = nearestNames(name, candidates);
  if (near.length === 0) return '';
  const quoted = near.map((n) => `"${n}"`);
  return `did you mean ${quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0]}?`;
}
