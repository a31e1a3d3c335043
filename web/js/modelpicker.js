// The session's model: a menu of installed models with their capability badges.
import { h } from './dom.js';
import { icon } from './icons.js';
import { bytes } from './format.js';
import { tx } from './i18n.js';

const BADGES = ['tools', 'thinking', 'vision'];

export function badges(capabilities = []) {
  return BADGES.filter((c) => capabilities.includes(c))
    .map((c) => h('span', { class: `cap cap-${c}`, i18n: `cap.${c}` }));
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
      this.nameEl.textContent = name;
    } else tx(this.nameEl, 'model.none');
    this.button.title = name || '';
  }

  render(models, error) {
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
    this.menu.replaceChildren(
      h('div', { class: 'menu-head', i18n: 'model.installed' }),
      ...rows, empty || '',
      h('div', { class: 'menu-foot' }, h('button', { class: 'link-btn', type: 'button', icon: 'retry', onclick: () => this.onRefresh() },
        h('span', { i18n: 'model.refresh' }))));
  }
}
