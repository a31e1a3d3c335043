// The change history: what the agent changed on disk, newest first (the same list as
// `metona-tray changes`), with Undo per change and "Undo all in this turn". A modal panel like
// Settings. Paths come from tools the model drove: text only, hidden characters made visible.
import { h } from './dom.js';
import { icon } from './icons.js';
import { t } from './i18n.js';
import { ago, bytes, middlePath, visible, visibleText } from './format.js';
import { toolLabel } from './toolcard.js';
import { undoReasonArg } from './results.js';
import { setModal, trapTab } from './focustrap.js';

/** Consecutive entries of one turn form a group; an entry without a known turn stands alone. */
function groups(entries) {
  const out = [];
  for (const entry of entries) {
    const last = out[out.length - 1];
    if (last && entry.turn_id && last.turn_id === entry.turn_id) last.entries.push(entry);
    else out.push({ turn_id: entry.turn_id || null, title: entry.session_title || null, entries: [entry] });
  }
  return out;
}

export class HistoryPanel {
  constructor(panel, { load, undo, onClose, onError }) {
    this.panel = panel;
    this.body = panel.querySelector('#history-body');
    this.load = load;
    this.undo = undo;
    this.onError = onError;
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
      // A coded refusal in the page's language; otherwise a translated sentence, the raw one quoted.
      const info = err?.details?.reason_code ? { code: err.details.reason_code, params: err.details.reason_params } : null;
      const raw = (err && err.message) || String(err);
      const detail = info ? undoReasonArg(info, raw) : `“${visibleText(raw)}”`;
      this.body.replaceChildren(h('p', { class: 'tc-error', i18n: ['history.load_failed', { detail }] }));
      return;
    }
    this.render(entries || []);
  }

  render(entries) {
    const focusedId = this.body.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
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
    const all = undoable.length > 1 ? h('button', {
      class: 'btn small', type: 'button', icon: 'undo', dataset: { focusKey: `turn:${group.turn_id}` },
      onclick: (event) => this.undoMany(event.currentTarget, undoable),
    }, h('span', { i18n: ['history.undo_turn', { n: undoable.length }] })) : null;
    return h('section', { class: 'hist-group' },
      h('header', { class: 'hist-head' },
        h('span', { class: 'hist-chat', text: group.title ? visible(group.title) : t('history.other_chat') }),
        h('span', { class: 'hist-when', text: when ? ago(when) : '' }), all),
      h('ul', { class: 'hist-list' }, group.entries.map((entry) => this.row(entry))));
  }

  row(entry) {
    const label = toolLabel(entry.tool);
    const path = visible(entry.path || '');
    let state;
    if (entry.undone) state = h('span', { class: 'tc-undone', i18n: 'card.undone' });
    else if (entry.undoable) {
      state = h('button', {
        class: 'btn small', type: 'button', icon: 'undo', dataset: { focusKey: `change:${entry.id}` },
        i18nLabel: ['history.undo_change', { path }],
        onclick: (event) => this.undoMany(event.currentTarget, [entry]),
      }, h('span', { i18n: 'card.undo' }));
    } else {
      const tip = entry.reason ? { i18nTitle: ['card.no_undo_why', { reason: undoReasonArg(entry.reason_info, entry.reason) }] } : {};
      state = h('span', { class: 'muted hist-note', i18n: 'history.cannot_undo', ...tip });
    }
    return h('li', { class: 'hist-row' },
      h('span', { class: 'hist-icon' }, icon('file')),
      h('span', { class: 'hist-main' },
        label === entry.tool ? h('span', { class: 'hist-tool', text: visible(entry.tool) }) : h('span', { class: 'hist-tool', i18n: label }),
        h('span', { class: 'hist-path mono', text: middlePath(path, 52), title: path }),
        // The disk the change's undo copy takes (nothing kept for a created file): said in
        // words, a bare "0 B" under a write read as the file's size.
        entry.size > 0 ? h('span', { class: 'hist-size', i18n: ['history.copy_size', { size: bytes(entry.size) }] }) : null),
      state);
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
