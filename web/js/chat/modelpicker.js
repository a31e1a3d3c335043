// The session's model: a menu of installed models with their capability badges, and how the
// chosen one is offered the tools (natively, via its prompt, or not at all) with its check.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { bytes, visible } from '../lib/format.js';
import { tattr, tx } from '../lib/i18n.js';
import { selectBox } from '../lib/controls.js';

const BADGES = ['tools', 'thinking', 'vision'];
// How a model's tool mode shows in place of the Tools badge: natively it is the Tools badge.
const MODE_BADGE = { prompt: 'prompt_tools', off: 'tools_off' };
const MODES = ['auto', 'native', 'prompt', 'off'];

/** A model's badges; ``toolMode`` (Core's ``tool_mode``) replaces Tools when it is not native. */
export function badges(capabilities = [], toolMode = 'native') {
  const mode = MODE_BADGE[toolMode];
  const shown = BADGES.filter((c) => capabilities.includes(c) && !(mode && c === 'tools')).map(
    (c) => h('span', { class: `cap cap-${c}`, i18n: `cap.${c}` }),
  );
  return mode ? [h('span', { class: `cap cap-${mode}`, i18n: `cap.${mode}` }), ...shown] : shown;
}

/**
 * A model's name as the header shows it: [name, tag]. What identifies it is kept: the name
 * without the registry and owner before its last "/" (the tooltip has the whole name), and its
 * tag, which the CSS cuts last (chat.css: the name gives its room first).
 */
export function modelLabel(name) {
  const shown = visible(name);
  const slash = shown.lastIndexOf('/');
  const bare = slash >= 0 && slash < shown.length - 1 ? shown.slice(slash + 1) : shown;
  const colon = bare.lastIndexOf(':');
  return colon > 0 ? [bare.slice(0, colon), bare.slice(colon)] : [bare, ''];
}

export class ModelPicker {
  constructor(button, menu, { onPick, onRefresh, onToolMode, onCheck }) {
    this.button = button;
    this.menu = menu;
    this.nameEl = button.querySelector('#model-name');
    // The header's badge: the chosen model's tools come via its prompt, or are off.
    this.modeEl = h('span', { class: 'cap model-mode', hidden: true });
    this.nameEl.after(this.modeEl);
    this.onPick = onPick;
    this.onRefresh = onRefresh;
    this.onToolMode = onToolMode;
    this.onCheck = onCheck;
    this.models = [];
    this.checking = null; // the model being checked now
    this.checkNote = null; // {model, key, args}: what the last check said
    button.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    menu.addEventListener('keydown', (event) => {
      if (event.target.closest('.select') && event.key !== 'Tab') return; // its own keys
      const items = [...menu.querySelectorAll('.model-row, .menu-foot button')];
      const index = items.indexOf(document.activeElement);
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        items[(index + step + items.length) % items.length]?.focus();
      } else if (event.key === 'Home' || event.key === 'End') {
        event.preventDefault();
        items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
      } else if (event.key === 'Tab') {
        this.close(); // focus moves on; a menu left open would cover the chat
      }
    });
    document.addEventListener('pointerdown', (event) => {
      if (this.isOpen && !menu.contains(event.target) && !button.contains(event.target))
        this.close();
    });
  }

  get isOpen() {
    return !this.menu.hidden;
  }

  open() {
    this.onRefresh();
    this.menu.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    (
      this.menu.querySelector('.model-row[aria-selected="true"]') ||
      this.menu.querySelector('.model-row')
    )?.focus();
  }

  close() {
    this.menu.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
  }

  /** Label the button with the session's model (or the default, or "no model"). */
  setCurrent(name) {
    this.current = name;
    if (name) {
      delete this.nameEl.dataset.i18n;
      const [base, tag] = modelLabel(name);
      this.nameEl.replaceChildren(
        h('span', { class: 'model-base', text: base }),
        tag ? h('span', { class: 'model-tag', text: tag }) : '',
      );
    } else tx(this.nameEl, 'model.none');
    this.button.title = name ? visible(name) : '';
    this.showMode();
  }

  /** The header's badge for the current model's tool mode (none when native). */
  showMode() {
    const info = this.models.find((m) => m.name === this.current);
    const badge = info && MODE_BADGE[info.tool_mode];
    this.modeEl.hidden = !badge;
    if (badge) {
      this.modeEl.className = `cap model-mode cap-${badge}`;
      tx(this.modeEl, `cap.${badge}`);
      tattr(this.modeEl, 'title', `cap.${badge}`); // the whole words when it is cut
    }
  }

  /** The current model's tools: the mode switch, what it means, and the check. */
  toolsPanel() {
    const info = this.models.find((m) => m.name === this.current);
    if (!info) return '';
    const name = visible(info.name);
    const chosen = info.tool_mode_chosen ? info.tool_mode : 'auto';
    const native = info.capabilities?.includes('tools');
    // The page's own select (a native one ignores the theme); Native only where the server has
    // tools.
    const box = selectBox({
      id: 'model-tools-mode',
      labelId: 'model-tools-mode-label',
      onChange: (value) => this.onToolMode(info.name, value === 'auto' ? null : value),
    });
    box.set(
      chosen,
      MODES.filter((mode) => mode !== 'native' || native || chosen === 'native').map((mode) => ({
        value: mode,
        key: `model.tools.${mode}`,
      })),
    );
    box.root.classList.add('model-tools-mode');
    this.toolsBox = box;
    box.root.dataset.value = chosen;
    const note = this.checkNote && this.checkNote.model === info.name ? this.checkNote : null;
    const checked = info.tool_check
      ? h('span', { class: 'model-checked', i18n: `model.checked.${info.tool_check}` })
      : '';
    const busy = this.checking === info.name;
    return h(
      'div',
      { class: 'model-tools' },
      h('span', {
        id: 'model-tools-mode-label',
        class: 'model-tools-label',
        i18n: ['model.tools_for', { model: name }],
      }),
      box.root,
      h('p', { class: 'menu-note model-tools-help', i18n: `model.tools_help.${info.tool_mode}` }),
      h(
        'div',
        { class: 'model-check-row' },
        h(
          'button',
          {
            class: 'link-btn model-check-tools',
            type: 'button',
            'aria-disabled': busy ? 'true' : null,
            onclick: () => this.check(info.name),
          },
          h('span', { i18n: 'model.check' }),
        ),
        checked,
      ),
      h(
        'p',
        { class: 'menu-note model-check-status', role: 'status' },
        busy
          ? h('span', { i18n: ['model.checking', { model: name }] })
          : note
            ? h('span', { i18n: [note.key, note.args] })
            : null,
      ),
    );
  }

  async check(name) {
    if (this.checking) return;
    this.checking = name;
    this.checkNote = null;
    this.render(this.models, this.error);
    try {
      const done = await this.onCheck(name);
      this.checkNote = {
        model: name,
        key: `model.check.${done.result}`,
        args: { model: visible(name) },
      };
    } catch (err) {
      this.checkNote = {
        model: name,
        key: 'model.check_failed',
        args: { detail: visible(err?.message || String(err)) },
      };
    } finally {
      this.checking = null;
      this.render(this.models, this.error);
    }
  }

  render(models, error) {
    this.models = models;
    this.error = error;
    this.showMode();
    // open() asks for a fresh list: when it arrives, keep the keyboard focus in the menu.
    const active = document.activeElement;
    const refocus =
      this.isOpen &&
      (this.menu.contains(active) || active === this.button || active === document.body);
    // Where the user was: the same model's row or Refresh, not back to the top (a list that
    // arrives just after End or an arrow key must not move the focus under the user).
    const wasFoot =
      this.menu.contains(active) && active.closest('.menu-foot')
        ? active.id
          ? `#${active.id}`
          : active.classList.contains('model-check-tools')
            ? '.model-check-tools'
            : '.model-refresh'
        : null;
    const wasModel =
      this.menu.contains(active) && active.getAttribute('role') === 'option'
        ? active.querySelector('.model-title')?.textContent
        : null;
    const rows = models.map((m) =>
      h(
        'button',
        {
          class: 'model-row',
          type: 'button',
          role: 'option',
          'aria-selected': String(m.name === this.current),
          onclick: () => {
            this.close();
            this.onPick(m.name);
          },
        },
        h('span', { class: 'model-check' }, m.name === this.current ? icon('check') : null),
        h(
          'span',
          { class: 'model-main' },
          h('span', { class: 'model-title', text: m.name }),
          h('span', {
            class: 'model-sub',
            text: [m.parameter_size, m.size ? bytes(m.size) : null].filter(Boolean).join(' · '),
          }),
        ),
        h('span', { class: 'caps' }, badges(m.capabilities, m.tool_mode)),
      ),
    );
    const empty = !models.length
      ? h('p', { class: 'menu-note', i18n: error ? 'model.unreachable' : 'model.empty' })
      : null;
    // A list that arrives while the user has the tools select open keeps it open.
    const selectOpen = Boolean(this.menu.querySelector('#model-tools-mode[aria-expanded="true"]'));
    this.toolsBox = null;
    // Only options inside the listbox; the heading and Refresh sit around it.
    this.menu.replaceChildren(
      h('div', { class: 'menu-head', i18n: 'model.installed' }),
      rows.length ? h('div', { role: 'listbox', i18nLabel: 'model.pick' }, rows) : '',
      empty || '',
      h(
        'div',
        { class: 'menu-foot' },
        h(
          'button',
          {
            class: 'link-btn model-refresh',
            type: 'button',
            icon: 'retry',
            onclick: () => this.onRefresh(),
          },
          h('span', { i18n: 'model.refresh' }),
        ),
        this.toolsPanel(),
      ),
    );
    if (selectOpen && this.toolsBox) {
      this.toolsBox.open();
      return;
    }
    if (!refocus) return;
    const same = wasFoot
      ? this.menu.querySelector(wasFoot)
      : wasModel &&
        [...this.menu.querySelectorAll('.model-row')].find(
          (row) => row.querySelector('.model-title')?.textContent === wasModel,
        );
    (
      same ||
      this.menu.querySelector('.model-row[aria-selected="true"]') ||
      this.menu.querySelector('.model-row, .menu-foot button')
    )?.focus();
  }
}
