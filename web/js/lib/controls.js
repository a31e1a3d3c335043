// Page controls that replace the native ones whose look the engine decides (a GTK select menu,
// spin arrows, radio dots): they follow the page's theme in light and dark, and keep the ARIA
// roles and keys of what they replace (listbox, radiogroup, spinbutton).
import { h } from './dom.js';
import { icon } from './icons.js';
import { t, tx } from './i18n.js';

let openList = null; // the one listbox shown at a time

document.addEventListener('pointerdown', (event) => {
  if (openList && !openList.root.contains(event.target)) openList.close(false);
});

/**
 * A select: a button naming the choice and a listbox below it.
 * options: [{ value, key } | { value, text }]; onChange(value, event) gets the trusted event.
 */
export function selectBox({ id, labelId, onChange }) {
  const listId = `${id}-list`;
  const label = h('span', { class: 'select-value' });
  const button = h(
    'button',
    {
      id,
      class: 'input select-btn',
      type: 'button',
      'aria-haspopup': 'listbox',
      'aria-expanded': 'false',
      'aria-controls': listId,
      'aria-labelledby': `${labelId} ${id}`,
    },
    label,
    icon('chevron', 'select-chev'),
  );
  const list = h('ul', {
    id: listId,
    class: 'select-list',
    role: 'listbox',
    tabindex: '-1',
    'aria-labelledby': labelId,
    hidden: true,
  });
  const root = h('div', { class: 'select' }, button, list);
  let options = [];
  let value = '';
  let active = -1;

  const optionId = (index) => `${id}-opt-${index}`;
  const render = () => {
    list.replaceChildren(
      ...options.map((opt, index) => {
        const li = h(
          'li',
          {
            id: optionId(index),
            class: 'select-option',
            role: 'option',
            'aria-selected': String(opt.value === value),
            dataset: { value: opt.value },
          },
          icon('check', 'select-tick'),
        );
        li.append(opt.key ? tx(h('span'), opt.key) : h('span', { text: opt.text }));
        li.addEventListener('click', (event) => choose(index, event));
        return li;
      }),
    );
    const current = options.find((o) => o.value === value);
    if (current?.key) tx(label, current.key);
    else {
      delete label.dataset.i18n;
      label.textContent = current ? current.text : String(value ?? '');
    }
  };
  const highlight = (index) => {
    active = Math.max(0, Math.min(options.length - 1, index));
    list
      .querySelectorAll('.select-option')
      .forEach((li, i) => li.classList.toggle('active', i === active));
    list.setAttribute('aria-activedescendant', optionId(active));
    // Scroll the list itself only: scrollIntoView would also scroll the page's clipped
    // containers and push the header out of the window.
    const item = list.children[active];
    if (item) {
      if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
      else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
      }
    }
  };
  const api = {
    root,
    open() {
      if (openList && openList !== api) openList.close(false);
      openList = api;
      list.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      // Open upwards when the list would run past the bottom of what scrolls around it.
      list.classList.remove('up');
      const frame = root.closest('.panel-body') || document.documentElement;
      const room = frame.getBoundingClientRect().bottom - button.getBoundingClientRect().bottom;
      if (
        room < list.offsetHeight + 8 &&
        button.getBoundingClientRect().top - frame.getBoundingClientRect().top > room
      ) {
        list.classList.add('up');
      }
      highlight(
        Math.max(
          0,
          options.findIndex((o) => o.value === value),
        ),
      );
      list.focus({ preventScroll: true });
    },
    close(refocus = true) {
      if (list.hidden) return;
      list.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      if (openList === api) openList = null;
      if (refocus) button.focus();
    },
    set(next, nextOptions) {
      if (nextOptions) options = nextOptions;
      value = next ?? '';
      render();
    },
    get value() {
      return value;
    },
  };
  function choose(index, event) {
    const opt = options[index];
    api.close();
    if (!opt || opt.value === value) return;
    value = opt.value;
    render();
    onChange(value, event);
  }
  button.addEventListener('click', () => (list.hidden ? api.open() : api.close()));
  button.addEventListener('keydown', (event) => {
    if (['ArrowDown', 'ArrowUp', 'Enter', ' '].includes(event.key)) {
      event.preventDefault();
      api.open();
    }
  });
  list.addEventListener('keydown', (event) => {
    const keys = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      Home: 0,
      End: options.length - 1,
      PageDown: active + 5,
      PageUp: active - 5,
    };
    if (event.key in keys) {
      event.preventDefault();
      highlight(keys[event.key]);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose(active, event);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation(); // closes the list, not the panel it is in
      api.close();
    } else if (event.key === 'Tab') {
      api.close(false);
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) {
      const key = event.key.toLowerCase();
      const names = [...list.children].map((li) => li.textContent.trim().toLowerCase());
      const start = active + 1;
      const found = [...names.slice(start), ...names.slice(0, start)].findIndex((n) =>
        n.startsWith(key),
      );
      if (found >= 0) highlight((start + found) % names.length);
    }
  });
  list.addEventListener('focusout', (event) => {
    if (!root.contains(event.relatedTarget)) api.close(false);
  });
  return api;
}

/**
 * Radio choices as an ARIA radiogroup with a roving tab stop: Tab enters at the checked one,
 * arrows move and choose, Space chooses. onChange(value, event) gets the trusted event.
 * choices: [{ value, key, helpKey }].
 */
export function radioGroup({ id, labelId, choices, inline, onChange }) {
  let value = null;
  const items = choices.map((choice) => {
    const item = h(
      'div',
      {
        class: `radio${inline ? ' inline' : ''}`,
        role: 'radio',
        tabindex: '-1',
        'aria-checked': 'false',
        id: `${id}-${choice.value}`,
        dataset: { value: choice.value },
      },
      h('span', { class: 'radio-dot', 'aria-hidden': 'true' }),
      h(
        'span',
        { class: 'radio-text' },
        h('span', { i18n: choice.key }),
        choice.helpKey ? h('span', { class: 'help', i18n: choice.helpKey }) : null,
      ),
    );
    item.addEventListener('click', (event) => pick(choice.value, event));
    return item;
  });
  const group = h(
    'div',
    { class: 'radio-group', role: 'radiogroup', id, 'aria-labelledby': labelId },
    items,
  );
  const show = () => {
    for (const item of items) {
      const on = item.dataset.value === value;
      item.setAttribute('aria-checked', String(on));
      item.tabIndex = on ? 0 : -1;
    }
    if (!items.some((i) => i.tabIndex === 0) && items[0]) items[0].tabIndex = 0;
  };
  function pick(next, event) {
    if (next === value) return;
    const before = value;
    value = next;
    show();
    onChange(next, event, () => {
      value = before;
      show();
    });
  }
  group.addEventListener('keydown', (event) => {
    const index = items.indexOf(document.activeElement);
    if (index < 0) return;
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
    if (step) {
      event.preventDefault();
      const next = items[(index + step + items.length) % items.length];
      next.focus();
      pick(next.dataset.value, event);
    } else if (event.key === ' ' || event.key === 'Enter') {
      event.preventDefault();
      pick(items[index].dataset.value, event);
    }
  });
  return {
    root: group,
    set(next) {
      value = next;
      show();
    },
    get value() {
      return value;
    },
  };
}

/**
 * A number field without the engine's spin arrows: a text box with role spinbutton, arrow keys
 * and − / + buttons that step it. onCommit(number | null, event): null when out of range.
 */
export function numberField({ id, min, max, step, describedBy, onCommit }) {
  const input = h('input', {
    id,
    class: 'input number',
    type: 'text',
    inputmode: step < 1 ? 'decimal' : 'numeric',
    role: 'spinbutton',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-valuemin': min,
    'aria-valuemax': max,
    'aria-describedby': describedBy,
  });
  const digits = String(step).split('.')[1]?.length || 0;
  const parse = () => {
    const text = input.value.trim().replace(',', '.');
    const n = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
    return Number.isFinite(n) && n >= min && n <= max ? n : null;
  };
  const commit = (event) => onCommit(parse(), event);
  const bump = (direction, event) => {
    const now = parse() ?? min;
    const next = Math.min(max, Math.max(min, now + direction * step));
    input.value = next.toFixed(digits);
    input.setAttribute('aria-valuenow', String(next));
    commit(event);
  };
  input.addEventListener('change', commit);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      event.preventDefault();
      bump(event.key === 'ArrowUp' ? 1 : -1, event);
    }
  });
  const stepper = (direction, glyph, key) =>
    h(
      'button',
      {
        class: 'step-btn',
        type: 'button',
        tabindex: '-1',
        i18nLabel: [key, { n: step }],
        onclick: (event) => {
          bump(direction, event);
          input.focus();
        },
      },
      glyph,
    );
  const root = h(
    'div',
    { class: 'number-field' },
    input,
    stepper(-1, '−', 'set.step_down'),
    stepper(1, '+', 'set.step_up'),
  );
  return {
    root,
    input,
    set(v) {
      input.value = v ?? '';
      input.setAttribute('aria-valuenow', String(v ?? ''));
    },
    range: () => t('settings.range', { min, max }),
  };
}
