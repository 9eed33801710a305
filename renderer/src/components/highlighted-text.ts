// A document's text with the rules' matches marked: overlapping spans are cut at every boundary, and each piece
// is marked in the colour of the first rule that covers it (its title names every rule that does).
import { h } from '../dom.js';
import type { DocumentMatch } from '../types.js';

/** Colours cycle through this many classes (hl-0 … hl-5). */
const COLOURS = 6;

export interface HighlightedText {
  element: HTMLElement;
  /** Rule id → how many matches, in order of first appearance; the index is the rule's colour. */
  rules: Array<{ rule_id: string; count: number; colour: number }>;
}

export function highlightedText(text: string, matches: DocumentMatch[]): HighlightedText {
  const order: string[] = [];
  const counts = new Map<string, number>();
  for (const m of matches) {
    if (!counts.has(m.rule_id)) order.push(m.rule_id);
    counts.set(m.rule_id, (counts.get(m.rule_id) ?? 0) + 1);
  }
  const colour = (rule: string) => order.indexOf(rule) % COLOURS;
  const cuts = [...new Set([0, text.length, ...matches.flatMap((m) => [m.start, m.end])])]
    .filter((n) => n >= 0 && n <= text.length)
    .sort((a, b) => a - b);
  const pre = h('pre', { class: 'doc-text', attrs: { tabindex: 0, 'aria-label': 'Document text' } });
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [start, end] = [cuts[i], cuts[i + 1]];
    const piece = text.slice(start, end);
    const covering = matches.filter((m) => m.start <= start && m.end >= end);
    if (covering.length === 0) {
      pre.append(piece);
      continue;
    }
    const rules = [...new Set(covering.map((m) => m.rule_id))];
    const what = covering.map(
      (m) => `${m.rule_id}: ${m.kind === 'extract' ? `extracts ${m.label}` : `matches ${m.label}`}`,
    );
    pre.append(
      h(
        'mark',
        {
          class: `hl hl-${colour(rules[0])}`,
          attrs: { title: [...new Set(what)].join('\n'), 'data-rules': rules.join(' ') },
        },
        piece,
      ),
    );
  }
  return {
    element: pre,
    rules: order.map((rule_id) => ({ rule_id, count: counts.get(rule_id) ?? 0, colour: colour(rule_id) })),
  };
}
