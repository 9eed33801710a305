// Knows when the service stopped answering: shows a notice, checks again by itself, and tells the page
// when it is back so it can reload what failed and save what waited. Edits stay in the editor meanwhile.
import { h } from './dom.js';

const RETRY_MS = 2000;
type Listener = () => void;
const listeners = new Set<Listener>();
let banner: HTMLElement | null = null;
let timer: number | undefined;

/** Called when the service is reachable again; returns an unsubscribe function. */
export function onReconnect(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener the service may be used again (it answers, or the person signed in again). */
export function announceReconnect(): void {
  for (const l of [...listeners]) l();
}

async function check(): Promise<void> {
  try {
    const res = await fetch('/api/health', { cache: 'no-store' });
    if (res.ok) {
      banner?.remove();
      banner = null;
      timer = undefined;
      announceReconnect();
      return;
    }
  } catch {
    // still away
  }
  timer = window.setTimeout(() => void check(), RETRY_MS);
}

/** A request could not reach the service: say so once and start checking until it answers. */
export function reportUnreachable(): void {
  if (!banner) {
    banner = h(
      'div',
      { class: 'banner offline', attrs: { role: 'alert', id: 'offline-banner' } },
      'The dms-rules service cannot be reached. Retrying by itself… your edits stay here and are saved when it is back.',
    );
    document.body.prepend(banner);
  }
  timer ??= window.setTimeout(() => void check(), RETRY_MS);
}
