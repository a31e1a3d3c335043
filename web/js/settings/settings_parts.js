// Compound settings controls: per-tool switches, folder lists, the hotkey recorder.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { visible } from '../lib/format.js';

const ASKS = new Set(['write_file', 'create_directory', 'delete_file', 'edit_file', 'move_file']);

export function toolList(names, onChange) {
  const boxes = new Map();
  const rows = names.map((name) => {
    const box = h('input', {
      type: 'checkbox',
      id: `tool-${name}`,
      onchange: (event) =>
        onChange(
          names.filter((n) => !boxes.get(n).checked),
          event,
        ),
    });
    boxes.set(name, box);
    return h(
      'label',
      { class: 'tool-row', for: `tool-${name}` },
      box,
      h(
        'span',
        { class: 'tool-text' },
        h(
          'span',
          { class: 'tool-title' },
          h('span', { i18n: `tool.${name}` }),
          ' ',
          h('code', { text: name }),
        ),
        h('span', { class: 'help', i18n: `tooldesc.${name}` }),
      ),
      ASKS.has(name) ? h('span', { class: 'cap cap-asks', i18n: 'set.asks_first' }) : null,
    );
  });
  const root = h(
    'fieldset',
    { class: 'field tools-field' },
    h('legend', { i18n: 'set.disabled_tools' }),
    h('div', { class: 'tool-list' }, rows),
  );
  const set = (disabled = []) => {
    for (const [name, box] of boxes) box.checked = !disabled.includes(name);
  };
  return { root, set };
}

export function dirList(name, { onChange, onPick }) {
  let current = [];
  const list = h('ul', { class: 'dir-list' });
  const input = h('input', {
    class: 'input',
    type: 'text',
    id: `add-${name}`,
    spellcheck: 'false',
    autocomplete: 'off',
    i18nPlaceholder: 'set.dir_placeholder',
  });
  const add = (path, event) => {
    const value = (path || '').trim();
    if (!value || current.includes(value)) return;
    input.value = '';
    onChange([...current, value], event);
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add(input.value, event);
    }
  });
  const browse = h(
    'button',
    {
      class: 'icon-btn',
      type: 'button',
      i18nTitle: 'set.browse',
      i18nLabel: 'set.browse',
      onclick: async (event) => {
        const picked = await onPick();
        if (picked) add(picked, event);
        else input.focus();
      },
    },
    icon('folder'),
  );
  const root = h(
    'div',
    { class: 'field dirs-field' },
    h('label', { for: `add-${name}`, i18n: `set.${name}` }),
    h('p', { class: 'help', i18n: `set.${name}_help` }),
    list,
    h(
      'div',
      { class: 'dir-add' },
      input,
      browse,
      h('button', {
        class: 'btn small',
        type: 'button',
        i18n: 'common.add',
        onclick: (event) => add(input.value, event),
      }),
    ),
  );
  const set = (paths = []) => {
    current = [...paths];
    list.replaceChildren(
      ...current.map((path) =>
        h(
          'li',
          { class: 'dir' },
          icon('folder'),
          h('span', { class: 'dir-path', text: visible(path), title: visible(path) }),
          h(
            'button',
            {
              class: 'icon-btn small',
              type: 'button',
              i18nTitle: 'common.remove',
              i18nLabel: 'common.remove',
              onclick: (event) =>
                onChange(
                  current.filter((p) => p !== path),
                  event,
                ),
            },
            icon('close'),
          ),
        ),
      ),
    );
    if (!current.length) list.append(h('li', { class: 'dir none', i18n: 'set.dirs_none' }));
  };
  return { root, set };
}

const MODIFIERS = { Control: 'Ctrl', Alt: 'Alt', Shift: 'Shift', Meta: 'Cmd' };

/** A text field that records a key combination when pressed (or takes typed text). */
export function hotkeyInput(id, onChange) {
  const input = h('input', {
    class: 'input hotkey',
    type: 'text',
    id,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': `${id}-help`,
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Tab' || event.key === 'Escape' || event.key === 'Enter') return;
    if (!event.ctrlKey && !event.altKey && !event.metaKey) return; // plain typing edits the text
    event.preventDefault();
    if (event.key in MODIFIERS) return;
    const parts = [];
    if (event.ctrlKey) parts.push('Ctrl');
    if (event.altKey) parts.push('Alt');
    if (event.shiftKey) parts.push('Shift');
    if (event.metaKey) parts.push('Cmd');
    const key =
      event.code === 'Space'
        ? 'Space'
        : event.key.length === 1
          ? event.key.toUpperCase()
          : event.key;
    input.value = [...parts, key].join('+');
    onChange(input.value);
  });
  input.addEventListener('change', () => {
    const value = input.value.trim();
    if (/^((Ctrl|Alt|Shift|Cmd|Super|Meta)\+)+[^+\s]+$/i.test(value)) onChange(value);
    else input.dispatchEvent(new CustomEvent('metona:hotkey-invalid', { bubbles: true }));
  });
  const root = h('div', { class: 'field' }, h('label', { for: id, i18n: 'set.hotkey' }), input);
  const set = (v) => {
    input.value = v ?? '';
  };
  return { root, set };
}

/** The folders and names every tool refuses whatever the settings say: read-only, folded. */
export function builtinRules(rules) {
  const box = h('details', { class: 'builtins' }, h('summary', { i18n: 'set.builtin_title' }));
  if (!rules) return box;
  box.append(
    h('p', { class: 'help', i18n: 'set.builtin_help' }),
    h('h4', { i18n: 'set.builtin_dirs' }),
    h(
      'ul',
      { class: 'builtin-list mono' },
      (rules.blocked_dirs || []).map((d) => h('li', { text: visible(d) })),
    ),
    h('h4', { i18n: 'set.builtin_names' }),
    h(
      'ul',
      { class: 'builtin-list mono names' },
      (rules.sensitive_names || []).map((n) => h('li', { text: visible(n) })),
    ),
  );
  return box;
}
