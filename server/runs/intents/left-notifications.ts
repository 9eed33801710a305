import { isDeepStrictEqual } from 'node:util';
import type { Intent, NotifyEffect } from './intent-store.js';

const slot = (document: number, rule: string, path: string) => `${document}\0${rule}\0${path}`;

const EFFECT_KEYS = ['target', 'title', 'message', 'body', 'headers', 'attach'] as const;
const sameEffect = (a: NotifyEffect, b: NotifyEffect) =>
  EFFECT_KEYS.every((key) => isDeepStrictEqual(a[key] ?? null, b[key] ?? null));

/** Notifications the last process recorded and did not send: each a run a stop or kill cut short. */
export interface LeftNotifications {
  /**
   * The key of the left notification this run renders again (same document, rule, action and text), taken once;
   * null when there is none.
   */
  take(document: number, rule: string, path: string, effect: NotifyEffect): string | null;
}

/**
 * A run cut short after it recorded its notifications is run again by the document's next arrival, under another
 * event when catch-up or a resumed job runs it (an `always` notification is keyed by its run). The run that renders
 * the same notification is that run done again: it takes the left key, so the receiver gets one message under one
 * Idempotency-Key, whichever path ran the document first.
 */
export function leftNotifications(pending: readonly Intent[]): LeftNotifications {
  // Copies: the store blanks a finished intent's text in place.
  const left = new Map<string, Array<{ key: string; effect: NotifyEffect }>>();
  for (const intent of pending) {
    if (intent.kind !== 'notify' || intent.once) continue;
    const at = slot(intent.document, intent.rule, intent.path);
    left.set(at, [...(left.get(at) ?? []), { key: intent.key, effect: { ...intent } }]);
  }
  return {
    take(document, rule, path, effect) {
      const at = slot(document, rule, path);
      const candidates = left.get(at);
      const i = candidates?.findIndex((c) => sameEffect(c.effect, effect)) ?? -1;
      if (!candidates || i === -1) return null;
      const [found] = candidates.splice(i, 1);
      if (candidates.length === 0) left.delete(at);
      return found.key;
    },
  };
}
