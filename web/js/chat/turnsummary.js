// The end of a turn that changed files: one card listing what it created, edited, moved and
// deleted (with +/− lines where the whole diff is known), each row opening its tool card (the
// diff), and "Undo this turn" (Core.undo_turn: newest first, each checked; the report says
// what was left and why, with "Undo anyway" / "Keep" for a file changed since).
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { middlePath, visible } from '../lib/format.js';
import { TOOL_ICONS, diffCounts } from './toolcard.js';
import { turnReportView } from './turnreport.js';

/** The tools whose changes the undo journal keeps, so a turn's summary lists them. */
export const CHANGING = new Set([
  'write_file',
  'edit_file',
  'move_file',
  'delete_file',
  'create_directory',
]);

/** What one successful changing call did: its verb, path(s) and +/− lines when known. */
function change(record) {
  const { name, arguments: args = {}, result = {}, preview } = record;
  const path = String(result.path || args.path || '');
  let verb;
  let lines = null;
  let target = null;
  if (name === 'write_file') {
    verb = result.created ? 'turn.created' : 'turn.edited';
    const diff = preview?.kind === 'diff' && !preview.truncated ? preview.text : '';
    if (diff && !result.created) lines = diffCounts(diff);
  } else if (name === 'edit_file') {
    verb = 'turn.edited';
    if (typeof result.diff === 'string' && !result.diff_truncated) lines = diffCounts(result.diff);
  } else if (name === 'move_file') {
    verb = 'turn.moved';
    target = String(result.destination || args.destination || '');
  } else if (name === 'delete_file') verb = 'turn.deleted';
  else verb = result.created === false ? null : 'turn.created_folder';
  return verb ? { verb, path: String(result.source || path), target, lines } : null;
}

/**
 * @param {string} turnId
 * @param {object[]} records the turn's calls, oldest first
 * @param {{open: (callId: string) => void, undo: (force: string[]) => void,
 *   report: object|null, kept: Set<string>, keep: (id: string) => void}} on
 * @returns {HTMLElement|null} nothing when the turn changed no file
 */
export function turnSummaryView(turnId, records, { open, undo, report, kept, keep }) {
  const rows = [];
  for (const record of records) {
    if (!CHANGING.has(record.name) || record.status !== 'success') continue;
    const done = change(record);
    if (done) rows.push({ record, ...done });
  }
  if (!rows.length) return null;
  const undoable = rows.filter((r) => r.record.undoable && !r.record.undone);
  const items = rows.map(({ record, verb, path, target, lines }) => {
    const shown = visible(path);
    const where = target
      ? `${middlePath(shown, 40)} → ${middlePath(visible(target), 40)}`
      : middlePath(shown, 60);
    return h(
      'li',
      { class: 'ts-row' },
      h(
        'button',
        {
          class: 'ts-open',
          type: 'button',
          dataset: { focusKey: `open:${record.call_id}` },
          title: target ? `${shown} → ${visible(target)}` : shown,
          onclick: () => open(record.call_id), // its name is what it shows: verb, path, lines
        },
        h(
          'span',
          { class: 'ts-icon', 'aria-hidden': 'true' },
          icon(TOOL_ICONS[record.name] || 'file'),
        ),
        h('span', { class: 'ts-verb', i18n: verb }),
        h('span', { class: 'ts-path mono', text: where }),
        lines ? h('span', { class: 'ts-lines', i18n: ['turn.lines', lines] }) : null,
      ),
      record.undone ? h('span', { class: 'tc-undone', i18n: 'card.undone' }) : null,
    );
  });
  const counts = {};
  for (const r of rows) counts[r.verb] = (counts[r.verb] || 0) + 1;
  const undoButton = undoable.length
    ? h(
        'button',
        {
          class: 'btn small ts-undo',
          type: 'button',
          icon: 'undo',
          dataset: { focusKey: 'undo-turn' },
          i18nLabel: ['history.undo_turn_label', { n: undoable.length }],
          onclick: () => undo([]),
        },
        h('span', { i18n: 'history.undo_turn' }),
      )
    : null;
  return h(
    'section',
    { class: 'turn-summary', dataset: { turn: turnId }, i18nLabel: 'turn.title' },
    h(
      'header',
      { class: 'ts-head' },
      h('span', { class: 'ts-title', i18n: ['turn.changed', { n: rows.length }] }),
      undoButton,
    ),
    report ? turnReportView(turnId, report, { kept, force: (ids) => undo(ids), keep }) : null,
    h('ul', { class: 'ts-list' }, items),
  );
}
