// The frame around every signed-in page: navigation, demo notice, the signed-in user and sign-out.
import { request } from '../api.js';
import { formatTime, h } from '../dom.js';
import { mayLeave, navigate } from '../router.js';
import { signOut } from '../session.js';
import { dmsProblemText } from '../dms-status-text.js';
import type { DmsHealth, Me, UiConfig } from '../types.js';

export type Section = 'rules' | 'traces' | 'jobs' | 'settings';

const SECTIONS: { id: Section; label: string; href: string }[] = [
  { id: 'rules', label: 'Rules', href: '/rules' },
  { id: 'traces', label: 'Traces', href: '/traces' },
  { id: 'jobs', label: 'Jobs', href: '/jobs' },
  { id: 'settings', label: 'Settings', href: '/settings' },
];

/** Renders the frame and returns the element the page fills. */
export function renderShell(root: HTMLElement, me: Me, config: UiConfig | null, active: Section): HTMLElement {
  const main = h('main', { class: `page page-${active}`, attrs: { id: 'main', tabindex: -1 } });
  const logout = h('button', { class: 'link', attrs: { type: 'button', id: 'logout' } }, 'Sign out');
  logout.addEventListener('click', () => {
    if (!mayLeave()) return;
    void signOut().then(() => navigate('/login', { force: true }));
  });
  const nav = h(
    'nav',
    { attrs: { 'aria-label': 'Sections' } },
    ...SECTIONS.map((s) =>
      h('a', { attrs: { href: s.href, 'data-nav': true, 'aria-current': s.id === active ? 'page' : null } }, s.label),
    ),
  );
  const dms = h('span', { class: 'dms', attrs: { id: 'dms-badge' } });
  const arrival = h('span', { class: 'arrival muted small', attrs: { id: 'arrival-status' } });
  void showArrival(arrival);
  const header = h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'skip', attrs: { href: '#main' } }, 'Skip to content'),
    h('a', { class: 'brand', attrs: { href: '/rules', 'data-nav': true } }, 'dms-rules'),
    nav,
    h('span', { class: 'spacer' }),
    dms,
    arrival,
    h('span', { class: 'user', attrs: { id: 'current-user', title: 'Signed in' } }, me.username),
    logout,
  );
  const banner = h(
    'div',
    { class: 'banner', attrs: { role: 'note', id: 'demo-banner' } },
    'Demo mode: documents come from the built-in sample dms. Enter your Paperless-ngx URL and token in Settings to use it.',
  );
  const dmsDown = h('div', { class: 'banner dms-down', attrs: { id: 'dms-down', role: 'alert', hidden: true } });
  root.replaceChildren(header, banner, dmsDown, main);
  updateShell(config);
  return main;
}

/** Shows which dms the service uses now: the header badge, the demo notice and the dms-down banner. */
export function updateShell(config: UiConfig | null): void {
  const badge = document.getElementById('dms-badge');
  const banner = document.getElementById('demo-banner');
  const dmsDown = document.getElementById('dms-down');
  if (badge) {
    badge.hidden = !config?.dms_url;
    badge.textContent = config?.dms_url ? (config.demo ? 'demo dms' : new URL(config.dms_url).host) : '';
    badge.title = config?.dms_url ? `Documents come from ${config.dms_url}` : '';
  }
  if (banner) banner.hidden = !config?.demo;
  if (dmsDown) void showDmsProblem(dmsDown);
}

/** When this page first found the dms unusable (kept across pages, cleared once it answers). */
let downSince: Date | null = null;
/** While the banner shows, the dms is asked again this often, so the banner goes soon after it answers. */
const DMS_RECHECK_MS = 3000;
let recheck: number | undefined;

/** Fired on `document` when a recheck finds the dms answering again (the settings' status block listens). */
export const DMS_BACK_EVENT = 'dms-back';

/** A prominent banner while the dms cannot be reached, in plain words and since when this page saw it. */
async function showDmsProblem(target: HTMLElement, deep = false): Promise<void> {
  window.clearTimeout(recheck);
  const health = await request<{ dms?: DmsHealth }>('/api/health', { query: { deep: deep ? 1 : undefined } }).catch(
    () => null,
  );
  const problem = health?.dms ? dmsProblemText(health.dms) : null;
  if (!problem) {
    const wasDown = !target.hidden;
    downSince = null;
    target.hidden = true;
    if (wasDown && health) document.dispatchEvent(new CustomEvent(DMS_BACK_EVENT));
    return;
  }
  downSince ??= new Date();
  const since = downSince.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  // "… does not answer (connection refused) since 10:42. Is it running …": the time after the first sentence's claim.
  target.textContent = `${problem.replace(/\.(\s|$)/, ` since ${since}.$1`)} Rules cannot read or change documents until it answers.`;
  target.hidden = false;
  recheck = window.setTimeout(() => {
    if (target.isConnected) void showDmsProblem(target, true);
  }, DMS_RECHECK_MS);
}

interface Arrival {
  last_heard_at: string | null;
  waiting: number;
  catch_up_error: string | null;
  catch_up_retry_at: string | null;
}

/** "heard 10:42 · 3 waiting": when the dms last reached the service (webhook or poll) and what is still to run. */
async function showArrival(target: HTMLElement): Promise<void> {
  const health = await request<{ arrival?: Arrival }>('/api/health').catch(() => null);
  const a = health?.arrival;
  if (!a) return;
  const heard = a.last_heard_at ? `dms heard ${formatTime(a.last_heard_at)}` : 'dms not heard yet';
  target.textContent = `${heard} · ${a.waiting} waiting`;
  if (a.catch_up_error) {
    target.textContent += ' · catch-up failing';
    target.classList.add('error');
  }
  target.title = a.catch_up_error
    ? `${a.catch_up_error} Next try ${formatTime(a.catch_up_retry_at ?? '')}.`
    : 'When the dms last reached this service (webhook, poll or catch-up) and how many documents wait to be run.';
}
