// The change history: what the agent changed on disk, newest first (the same list as
// `metona-tray changes`), grouped by turn (the user's question, the chat, when, how many), with
// Undo per change and "Undo this turn" (`metona-tray undo --turn`). A modal panel like
// Settings. Paths come from tools the model drove: text only, hidden characters made visible.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { ago, bytes, middlePath, visible, visibleText } from '../lib/format.js';
import { toolLabel } from './toolcard.js';
import { undoReasonArg } from './results.js';
import { turnReportView } from './turnreport.js';
import { setModal, trapTab } from '../lib/focustrap.js';

/** A turn's entries form one group (wherever they fall in the list); an entry without a known
 * turn stands alone. Groups keep the order of their newest entry. */
function groups(entries) {
  const out = [];
  const byTurn = new Map();
  for (const entry of entries) {
    const known = entry.turn_id ? byTurn.get(entry.turn_id) : null;
    if (known) {
      known.entries.push(entry);
      continue;
    }
    const group = {
      turn_id: entry.turn_id || null,
      title: entry.session_title || null,
      prompt: entry.turn_prompt || null,
      entries: [entry],
    };
    if (entry.turn_id) byTurn.set(entry.turn_id, group);
    out.push(group);
  }
  return out;
}

export class HistoryPanel {
  constructor(panel, { load, undo, undoTurn, onClose, onError }) {
    this.panel = panel;
    this.body = panel.querySelector('#history-body');
    this.load = load;
    this.undo = undo;
    this.undoTurnCall = undoTurn;
    this.onError = onError;
    this.reports = new Map(); // turn id -> what its last "Undo this turn" did
    this.kept = new Set(); // entry ids the user chose to keep as they are now
    panel.querySelector('#history-close').addEventListener('click', onClose);
    trapTab(panel);
  }

  get isOpen() {
    return !this.panel.hidden;
  }

  async open() {
    this.panel.hidden = false;
    setModal(this.panel, true, '.topbar');
    this.panel.querySelector('#history-close').focus();
    await this.refresh();
  }

  close() {
    this.panel.hidden = true;
    setModal(this.panel, false, '.topbar');
  }

  async refresh() {
    if (!this.isOpen) return;
    let entries;
    try {
      entries = await this.load();
    } catch (err) {
      // A coded refusal in the page's language; otherwise a translated sentence, the raw one
      // quoted.
      const info = err?.details?.reason_code
        ? { code: err.details.reason_code, params: err.details.reason_params }
        : null;
      const raw = (err && err.message) || String(err);
      const detail = info ? undoReasonArg(info, raw) : `“${visibleText(raw)}”`;
      this.body.replaceChildren(
        h('p', { class: 'tc-error', i18n: ['history.load_failed', { detail }] }),
      );
      return;
    }
    this.render(entries || []);
  }

  render(entries) {
    const focusedId = this.body.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey
      : null;
    if (!entries.length) {
      this.body.replaceChildren(h('p', { class: 'muted empty', i18n: 'history.empty' }));
      return;
    }
    this.body.replaceChildren(...groups(entries).map((group) => this.groupView(group)));
    if (focusedId) this.body.querySelector(`[data-focus-key="${CSS.escape(focusedId)}"]`)?.focus();
  }

  groupView(group) {
    const undoable = group.entries.filter((e) => e.undoable && !e.undone);
    const when = group.entries[0].time;
    // A turn of one change has its row's Undo; a turn of several gets one Undo for them all.
    const all =
      group.turn_id && group.entries.length > 1 && undoable.length
        ? h(
            'button',
            {
              class: 'btn small',
              type: 'button',
              icon: 'undo',
              dataset: { focusKey: `turn:${group.turn_id}` },
              i18nLabel: ['history.undo_turn_label', { n: undoable.length }],
              onclick: () => this.undoTurn(group.turn_id),
            },
            h('span', { i18n: 'history.undo_turn' }),
          )
        : null;
    // A version "Undo anyway" kept belongs to no chat: it says what it is instead.
    const keptVersion = !group.turn_id && group.entries[0].tool === 'undo_anyway';
    const chat = group.title
      ? visible(group.title)
      : t(keptVersion ? 'history.kept_version' : 'history.other_chat');
    // The question that led to the changes names the turn; the chat, time and count follow.
    const ask = group.prompt ? visible(group.prompt.replace(/\s+/g, ' ').trim()) : null;
    // A chat titled by its first question would say the question twice.
    const sameAsAsk = ask && group.title && ask.startsWith(visible(group.title).replace(/…$/, ''));
    const meta = [
      ask && !sameAsAsk ? chat : null,
      when ? ago(when) : null,
      t('history.changes', { n: group.entries.length }),
    ]
      .filter(Boolean)
      .join(' · ');
    const report = group.turn_id ? this.reports.get(group.turn_id) : null;
    return h(
      'section',
      { class: 'hist-group', dataset: group.turn_id ? { turn: group.turn_id } : {} },
      h(
        'header',
        { class: 'hist-head' },
        h(
          'span',
          { class: 'hist-turn' },
          h('span', { class: 'hist-chat', text: ask || chat, title: ask || chat }),
          h('span', { class: 'hist-when', text: meta }),
        ),
        all,
      ),
      report ? this.reportView(group.turn_id, report) : null,
      h(
        'ul',
        { class: 'hist-list' },
        group.entries.map((entry) => this.row(entry)),
      ),
    );
  }

  reportView(turnId, report) {
    return turnReportView(turnId, report, {
      kept: this.kept,
      force: (ids) => this.undoTurn(turnId, ids),
      keep: (entryId) => this.keep(turnId, entryId),
    });
  }

  /** Undo a whole turn in Core (newest first, each checked); ``force`` names the changes the
   * user chose to undo anyway. The report stays under the turn's header, and takes the focus. */
  async undoTurn(turnId, force = []) {
    let report;
    try {
      report = await this.undoTurnCall(turnId, force);
    } catch (err) {
      this.onError(err);
      await this.refresh();
      return;
    }
    this.reports.set(turnId, report);
    await this.refresh();
    this.body.querySelector(`[data-focus-key="${CSS.escape(`report:${turnId}`)}"]`)?.focus();
  }

  keep(turnId, entryId) {
    this.kept.add(entryId);
    this.refresh().then(() =>
      this.body.querySelector(`[data-focus-key="${CSS.escape(`report:${turnId}`)}"]`)?.focus(),
    );
  }

  row(entry) {
    const label = toolLabel(entry.tool);
    const path = visible(entry.path || '');
    let state;
    if (entry.undone) state = h('span', { class: 'tc-undone', i18n: 'card.undone' });
    else if (entry.undoable) {
      state = h(
        'button',
        {
          class: 'btn small',
          type: 'button',
          icon: 'undo',
          dataset: { focusKey: `change:${entry.id}` },
          i18nLabel: ['history.undo_change', { path }],
          onclick: (event) => this.undoMany(event.currentTarget, [entry]),
        },
        h('span', { i18n: 'card.undo' }),
      );
    } else {
      const tip = entry.reason
        ? {
            i18nTitle: [
              'card.no_undo_why',
              { reason: undoReasonArg(entry.reason_info, entry.reason) },
            ],
          }
        : {};
      state = h('span', { class: 'muted hist-note', i18n: 'history.cannot_undo', ...tip });
    }
    return h(
      'li',
      { class: 'hist-row' },
      h('span', { class: 'hist-icon' }, icon('file')),
      h(
        'span',
        { class: 'hist-main' },
        label === entry.tool
          ? h('span', { class: 'hist-tool', text: visible(entry.tool) })
          : h('span', { class: 'hist-tool', i18n: label }),
        h('span', { class: 'hist-path mono', text: middlePath(path, 52), title: path }),
        // The disk the change's undo copy takes (nothing kept for a created file): said in
        // words, a bare "0 B" under a write read as the file's size.
        entry.size > 0
          ? h('span', {
              class: 'hist-size',
              i18n: ['history.copy_size', { size: bytes(entry.size) }],
            })
          : null,
      ),
      state,
    );
  }

  /** Undo newest first; stop at the first that cannot be undone (a later change depends on it). */
  async undoMany(button, entries) {
    button.disabled = true;
    for (const entry of entries) {
      try {
        await this.undo(entry.id);
      } catch (err) {
        this.onError(err);
        break;
      }
    }
    await this.refresh();
  }
}
