// The list of chats: switch, rename, export (Markdown or JSON), delete (with an inline
// confirmation), search by title.
// Docked beside the chat in a wide window; a drawer over it in the popup's narrow size.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { ago, visible } from '../lib/format.js';
import { tx } from '../lib/i18n.js';

export class Sidebar {
  constructor(root, { scrim, toggle, onSelect, onRename, onDelete, onExport, onSearch }) {
    this.root = root;
    this.scrim = scrim;
    this.toggleBtn = toggle;
    this.list = root.querySelector('#session-list');
    this.emptyNote = root.querySelector('#session-empty');
    this.search = root.querySelector('#session-search');
    this.actions = { onSelect, onRename, onDelete, onExport };
    this.editing = null;
    this.confirming = null;
    this.exporting = null;
    let timer = null;
    this.search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => onSearch(this.search.value.trim()), 150);
    });
    this.search.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.list.querySelector('.session-open')?.focus();
      }
    });
    this.list.addEventListener('keydown', (event) => this.arrowKeys(event));
    toggle.addEventListener('click', () => this.toggle());
    scrim.addEventListener('click', () => this.close());
    root.inert = !this.isOpen;
  }

  get isOverlay() {
    return window.matchMedia('(max-width: 759px)').matches;
  }

  get isOpen() {
    return this.root.classList.contains('open');
  }

  open() {
    this.root.classList.add('open');
    this.root.inert = false;
    this.toggleBtn.setAttribute('aria-expanded', 'true');
    this.scrim.hidden = !this.isOverlay;
  }

  /** Closed, the drawer is out of the Tab order and of what a screen reader reads (inert). */
  close() {
    if (this.root.contains(document.activeElement)) this.toggleBtn.focus({ preventScroll: true });
    this.root.inert = true;
    this.root.classList.remove('open');
    this.toggleBtn.setAttribute('aria-expanded', 'false');
    this.scrim.hidden = true;
  }

  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  focusSearch() {
    this.open();
    this.search.focus();
    this.search.select();
  }

  /** The chats to list; `query` is the search they answer (none: every chat). */
  render(sessions, currentId, running, query = '') {
    this.last = [sessions, currentId, running, query];
    this.emptyNote.hidden = sessions.length > 0;
    // An empty search result is not an empty history: say that nothing matched what was typed.
    if (query)
      tx(this.emptyNote, 'sidebar.no_match', {
        query: visible(query.length > 80 ? `${query.slice(0, 79)}…` : query),
      });
    else tx(this.emptyNote, 'sidebar.empty');
    // A refresh (a title or time change) rebuilds the rows: keep the keyboard focus where it was,
    // on the same control of the same row.
    const focused = this.list.contains(document.activeElement) ? document.activeElement : null;
    const oldRow = focused?.closest('.session');
    const index = oldRow ? [...oldRow.querySelectorAll('button, input')].indexOf(focused) : -1;
    this.list.replaceChildren(
      ...sessions.map((s) => this.row(s, s.id === currentId, running.has(s.id))),
    );
    if (oldRow && index >= 0) {
      const row = this.list.querySelector(
        `[data-session-id="${CSS.escape(oldRow.dataset.sessionId)}"]`,
      );
      const same = row?.querySelectorAll('button, input')[index];
      // Only the same control: a row that changed mode (rename, confirm) places its own focus.
      if (same && same.className === focused.className && same.textContent === focused.textContent)
        same.focus();
    }
  }

  rerender() {
    if (this.last) this.render(...this.last);
  }

  row(session, active, busy) {
    const li = h('li', {
      class: `session${active ? ' active' : ''}`,
      dataset: { sessionId: session.id },
    });
    if (this.editing === session.id) {
      const input = h('input', {
        class: 'input rename',
        type: 'text',
        value: session.title,
        i18nLabel: 'sidebar.rename',
        maxlength: 200,
      });
      const finish = (save) => {
        this.editing = null;
        if (save && input.value.trim() && input.value.trim() !== session.title) {
          this.actions.onRename(session.id, input.value.trim());
        } else this.rerender();
      };
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') finish(true);
        if (event.key === 'Escape') {
          event.stopPropagation();
          finish(false);
        }
      });
      input.addEventListener('blur', () => finish(true));
      li.append(input);
      requestAnimationFrame(() => input.focus());
      return li;
    }
    if (this.confirming === session.id) {
      li.classList.add('confirm');
      li.append(
        h('span', { class: 'confirm-text', i18n: 'sidebar.delete_confirm' }),
        h('button', {
          class: 'btn small danger',
          type: 'button',
          i18n: 'common.delete',
          onclick: () => {
            this.confirming = null;
            this.actions.onDelete(session.id);
          },
        }),
        h('button', {
          class: 'btn small',
          type: 'button',
          i18n: 'common.cancel',
          onclick: () => {
            this.confirming = null;
            this.rerender();
          },
        }),
      );
      return li;
    }
    if (this.exporting === session.id) {
      li.classList.add('confirm', 'export-choice');
      const choose = (format) => () => {
        this.exporting = null;
        this.rerender();
        this.actions.onExport(session.id, format);
      };
      const cancel = () => {
        this.exporting = null;
        this.rerender();
        this.list
          .querySelector(`[data-session-id="${CSS.escape(session.id)}"] .session-export`)
          ?.focus();
      };
      li.addEventListener('keydown', (event) => {
        if (event.key !== 'Escape') return;
        event.stopPropagation();
        cancel();
      });
      const first = h('button', {
        class: 'btn small',
        type: 'button',
        i18n: 'export.markdown',
        onclick: choose('markdown'),
      });
      li.append(
        h('span', { class: 'confirm-text', i18n: 'sidebar.export_as' }),
        first,
        h('button', {
          class: 'btn small',
          type: 'button',
          i18n: 'export.json',
          onclick: choose('json'),
        }),
        h('button', { class: 'btn small', type: 'button', i18n: 'common.cancel', onclick: cancel }),
      );
      requestAnimationFrame(() => first.focus());
      return li;
    }
    const title = session.title
      ? h('span', { class: 'session-name', text: session.title })
      : h('span', { class: 'session-name untitled', i18n: 'chat.untitled' });
    li.append(
      h(
        'button',
        {
          class: 'session-open',
          type: 'button',
          'aria-current': active ? 'true' : null,
          onclick: () => this.actions.onSelect(session.id),
        },
        title,
        h(
          'span',
          { class: 'session-meta' },
          busy ? h('span', { class: 'dot busy', 'aria-hidden': 'true' }) : null,
          h('span', { text: ago(session.updated_at) }),
        ),
      ),
      h(
        'span',
        { class: 'session-tools' },
        h(
          'button',
          {
            class: 'icon-btn small',
            type: 'button',
            i18nTitle: 'sidebar.rename',
            i18nLabel: 'sidebar.rename',
            onclick: () => {
              this.editing = session.id;
              this.rerender();
            },
          },
          icon('edit'),
        ),
        h(
          'button',
          {
            class: 'icon-btn small session-export',
            type: 'button',
            i18nTitle: 'sidebar.export',
            i18nLabel: 'sidebar.export',
            onclick: () => {
              this.exporting = session.id;
              this.rerender();
            },
          },
          icon('download'),
        ),
        h(
          'button',
          {
            class: 'icon-btn small',
            type: 'button',
            i18nTitle: 'common.delete',
            i18nLabel: 'common.delete',
            onclick: () => {
              this.confirming = session.id;
              this.rerender();
            },
          },
          icon('trash'),
        ),
      ),
    );
    return li;
  }

  arrowKeys(event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...this.list.querySelectorAll('.session-open')];
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) return;
    event.preventDefault();
    const next = event.key === 'ArrowDown' ? index + 1 : index - 1;
    if (next < 0) this.search.focus();
    else buttons[Math.min(next, buttons.length - 1)].focus();
  }
}
