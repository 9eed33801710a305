// Layout checks a browser test can run at any window size: no horizontal page scroll, no word cut in two.
import type { Page } from 'playwright-core';

// Runs in the page (a string: the project's tsconfig has no DOM types). A "word" is a run between spaces and
// the marks a line may break after (- / _ . @ :), so "INV-2025-0042" breaking after a hyphen is fine.
const CHECK = `(selectors) => {
  const out = [];
  const width = document.documentElement.scrollWidth;
  if (width > window.innerWidth + 1) out.push('the page is ' + width + ' px wide in a ' + window.innerWidth + ' px window');
  for (const sel of selectors) {
    for (const el of document.querySelectorAll(sel)) {
      if (el.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent || '';
        const words = /[^\\s\\-\\/_.@:]+/g;
        let m;
        while ((m = words.exec(text))) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) out.push(sel + ': "' + m[0] + '" is broken across lines');
        }
      }
    }
  }
  return [...new Set(out)];
}`;

/** What is wrong with the layout now: horizontal overflow, and words in `selectors` broken across lines. */
export function layoutProblems(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate(`(${CHECK})(${JSON.stringify(selectors)})`);
}
