// Rules with a schedule and when each runs next; hidden when no rule has one.
import { errorMessage, request } from '../api.js';
import { formatTime, h } from '../dom.js';
import type { ScheduleEntry } from '../types.js';

export function scheduledRuns(): HTMLElement {
  const box = h('section', { class: 'scheduled-runs', attrs: { 'aria-label': 'Scheduled rules' } });
  request<{ schedules: ScheduleEntry[] }>('/api/schedules')
    .then(({ schedules }) => {
      if (schedules.length === 0) return;
      box.replaceChildren(
        h('h2', {}, 'Scheduled'),
        h(
          'table',
          { class: 'schedules' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Rule', 'Schedule', 'Mode', 'Next run', 'Last run'].map((c) =>
                h('th', { attrs: { scope: 'col' } }, c),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            ...schedules.map((s) =>
              h(
                'tr',
                { attrs: { 'data-rule': s.rule_id } },
                h('td', {}, s.rule_id),
                h('td', {}, s.schedule),
                h('td', {}, s.dry_run ? 'dry run' : 'real'),
                h('td', { class: 'next-run' }, formatTime(s.next_run)),
                h(
                  'td',
                  {},
                  s.last_event_id != null
                    ? h(
                        'a',
                        { attrs: { href: `/traces?event_id=${s.last_event_id}`, 'data-nav': true } },
                        formatTime(s.last_run),
                      )
                    : formatTime(s.last_run),
                  s.last_skipped ? ` (skipped ${formatTime(s.last_skipped)}: previous run still going)` : '',
                ),
              ),
            ),
          ),
        ),
      );
    })
    .catch((err: unknown) =>
      box.replaceChildren(h('p', { class: 'error-box', attrs: { role: 'alert' } }, `Schedules: ${errorMessage(err)}`)),
    );
  return box;
}
