// What "Undo this turn" did (Core.undo_turn): how many changes were put back, and each one left
// with why. One that changed after the turn offers "Undo anyway" (replacing that change) or
// "Keep"; nothing is replaced without that word. Shared by the change history and the turn's
// summary card in the chat. Paths come from tools the model drove: hidden characters shown.
import { h } from '../lib/dom.js';
import { middlePath, visible } from '../lib/format.js';
import { failureLine } from './results.js';

/**
 * @param {string} turnId
 * @param {{undone: number, outcomes: object[]}} report
 * @param {{kept: Set<string>, force: (ids: string[]) => void, keep: (id: string) => void}} on
 */
export function turnReportView(turnId, report, { kept, force, keep }) {
  const outcomes = report.outcomes || [];
  const left = outcomes.filter((o) => !o.success);
  let head;
  if (!left.length && report.already)
    head = ['history.turn_done_rest', {}]; // after "Undo anyway"
  else if (!left.length) head = ['history.turn_done', { n: report.undone }];
  else if (report.undone)
    head = ['history.turn_partial', { undone: report.undone, tried: outcomes.length }];
  else head = ['history.turn_none', {}];
  const items = left.map((o) => {
    const path = visible(o.path || '');
    let choice = null;
    if (o.forceable && kept.has(o.id))
      choice = h('p', { class: 'muted hist-kept', i18n: 'history.kept' });
    else if (o.forceable) {
      choice = h(
        'div',
        { class: 'hist-choice' },
        h('p', { class: 'muted', i18n: 'history.forceable' }),
        h(
          'button',
          {
            class: 'btn small danger',
            type: 'button',
            dataset: { focusKey: `force:${o.id}` },
            i18nLabel: ['history.undo_anyway_label', { path }],
            onclick: () => force([o.id]),
          },
          h('span', { i18n: 'history.undo_anyway' }),
        ),
        h(
          'button',
          {
            class: 'btn small',
            type: 'button',
            dataset: { focusKey: `keep:${o.id}` },
            i18nLabel: ['history.keep_label', { path }],
            onclick: () => keep(o.id),
          },
          h('span', { i18n: 'history.keep' }),
        ),
      );
    }
    return h(
      'li',
      { class: 'hist-left' },
      h('span', { class: 'hist-path mono', text: middlePath(path, 52), title: path }),
      failureLine(o.code, o.params, o.error, 'tc-error'),
      choice,
    );
  });
  return h(
    'div',
    {
      class: 'hist-report',
      role: 'status',
      tabindex: '-1',
      dataset: { focusKey: `report:${turnId}` },
    },
    h('p', { class: 'hist-report-head', i18n: head }),
    items.length ? h('ul', { class: 'hist-left-list' }, items) : null,
  );
}
