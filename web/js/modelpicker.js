// The session's model: a menu of installed models with their capability badges.
import { h } from './dom.js';
import { icon } from './icons.js';
import { bytes, visible } from './format.js';
import { tx } from './i18n.js';

const BADGES = ['tools', 'thinking', 'vision'];

export function badges(capabilities = []) {
  return BADGES.filter((c) => capabilities.includes(c))
    .map((c) => h('span', { class: `cap cap-${c}`, i18n: `cap.${c}` }));
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
  constructor(button, menu, { onPick, onRefresh }) {
    this.button = button;
    this.menu = menu;
    this.nameEl = button.querySelector('#model-name');
    this.onPick = onPick;
    this.onRefresh = onRefresh;
    button.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    menu.addEventListener('keydown', (event) => {
      const items = [...menu.querySelectorAll('[role="option"], .menu-foot button')];
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
      if (this.isOpen && !menu.contains(event.target) && !button.contains(event.target)) this.close();
    });
  }

  get isOpen() {
    return !this.menu.hidden;
  }

  open() {
    this.onRefresh();
    this.menu.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    (this.menu.querySelector('[aria-selected="true"]') || this.menu.querySelector('[role="option"]'))?.focus();
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
      this.nameEl.replaceChildren(h('span', { class: 'model-base', text: base }),
        tag ? h('span', { class: 'model-tag', text: tag }) : '');
    } else tx(this.nameEl, 'model.none');
    this.button.title = name ? visible(name) : '';
  }

  render(models, error) {
    // open() asks for a fresh list: when it arrives, keep the keyboard focus in the menu.
    const active = document.activeElement;
    const refocus = this.isOpen && (this.menu.contains(active) || active === this.button || active === document.body);
    // Where the user was: the same model's row or Refresh, not back to the top (a list that
    // arrives just after End or an arrow key must not move the focus under the user).
    const wasFoot = this.menu.contains(active) && active.closest('.menu-foot');
    const wasModel = this.menu.contains(active) && active.getAttribute('role') === 'option'
      ? active.querySelector('.model-title')?.textContent : null;
    const rows = models.map((m) => h('button', {
      class: 'model-row', type: 'button', role: 'option', 'aria-selected': String(m.name === this.current),
      onclick: () => {
        this.close();
        this.onPick(m.name);
      },
    },
    h('span', { class: 'model-check' }, m.name === this.current ? icon('check') : null),
    h('span', { class: 'model-main' }, h('span', { class: 'model-title', text: m.name }),
      h('span', { class: 'model-sub', text: [m.parameter_size, m.size ? bytes(m.size) : null].filter(Boolean).join(' · ') })),
    h('span', { class: 'caps' }, badges(m.capabilities))));
    const empty = !models.length
      ? h('p', { class: 'menu-note', i18n: error ? 'model.unreachable' : 'model.empty' })
      : null;
    // Only options inside the listbox; the heading and Refresh sit around it.
    this.menu.replaceChildren(
      h('div', { class: 'menu-head', i18n: 'model.installed' }),
      rows.length ? h('div', { role: 'listbox', i18nLabel: 'model.pick' }, rows) : '', empty || '',
      h('div', { class: 'menu-foot' }, h('button', { class: 'link-btn', type: 'button', icon: 'retry', onclick: () => this.onRefresh() },
        h('span', { i18n: 'model.refresh' }))));
    if (!refocus) return;
    const same = wasFoot
      ? this.menu.querySelector('.menu-foot button')
      : wasModel && [...this.menu.querySelectorAll('[role="option"]')]
        .find((row) => row.querySelector('.model-title')?.textContent === wasModel);
    (same || this.menu.querySelector('[aria-selected="true"]')
      || this.menu.querySelector('[role="option"], .menu-foot button'))?.focus();
  }
}
