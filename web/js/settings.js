// The settings panel: every setting of SPEC section 7. Each control saves on change through
// Core.update_settings (which validates again); errors show under the field they belong to.
import { h } from './dom.js';
import { icon } from './icons.js';
import { t, tx } from './i18n.js';
import { dirList, toolList, hotkeyInput } from './settings_parts.js';

const FILE_TOOLS = ['read_file', 'list_directory', 'search_files', 'write_file', 'create_directory', 'delete_file'];

// [section title key, [field, ...]]; a field is {name, type, ...}.
const LAYOUT = [
  ['settings.server', [
    { name: 'provider', type: 'select', options: ['ollama', 'openai'] },
    { name: 'endpoint', type: 'text', inputmode: 'url', pattern: 'https?://.+' },
    { name: 'api_key', type: 'password', local: true },
    { name: 'default_model', type: 'model' },
  ]],
  ['settings.generation', [
    { name: 'think', type: 'switch' },
    { name: 'temperature', type: 'number', min: 0, max: 2, step: 0.1 },
    { name: 'num_ctx', type: 'number', min: 512, max: 1048576, step: 512 },
    { name: 'max_rounds', type: 'number', min: 1, max: 100, step: 1 },
    { name: 'keep_alive', type: 'text' },
    { name: 'system_prompt', type: 'textarea' },
  ]],
  ['settings.tools', [
    { name: 'tools_enabled', type: 'switch' },
    { name: 'disabled_tools', type: 'tools' },
    { name: 'confirmation_mode', type: 'radio', options: ['all_writes', 'delete_only', 'full_auto'] },
    { name: 'confirmation_timeout', type: 'number', min: 5, max: 86400, step: 1 },
    { name: 'run_command_enabled', type: 'switch', warn: true },
    { name: 'sandbox_enabled', type: 'switch' },
    { name: 'tool_result_limit', type: 'number', min: 1000, max: 1000000, step: 1000 },
    { name: 'allow_writes_without_undo', type: 'switch', warn: true },
  ]],
  ['settings.folders', [
    { name: 'allowed_dirs', type: 'dirs' },
    { name: 'blocked_dirs', type: 'dirs' },
  ]],
  ['settings.desktop', [
    { name: 'language', type: 'select', options: ['system', 'en', 'zh-CN'] },
    { name: 'theme', type: 'radio', options: ['system', 'light', 'dark'], inline: true },
    { name: 'hotkey', type: 'hotkey' },
    { name: 'start_at_login', type: 'switch' },
  ]],
];

export class SettingsPanel {
  constructor(panel, { onPatch, onApiKey, onPickFolder, onUndoLast, onClose }) {
    this.panel = panel;
    this.body = panel.querySelector('#settings-body');
    this.savedNote = panel.querySelector('#settings-saved');
    this.handlers = { onPatch, onApiKey, onPickFolder, onUndoLast };
    this.controls = new Map(); // name -> { set(value), error element }
    panel.querySelector('#settings-close').addEventListener('click', onClose);
  }

  get isOpen() {
    return !this.panel.hidden;
  }

  open(settings, models) {
    this.build(settings, models);
    this.panel.hidden = false;
    this.body.scrollTop = 0;
    this.panel.querySelector('#settings-close').focus();
  }

  close() {
    this.panel.hidden = true;
  }

  build(settings, models) {
    this.controls.clear();
    this.models = models;
    this.body.replaceChildren(...LAYOUT.map(([title, fields]) => h('section', { class: 'set-section' },
      h('h3', { i18n: title }), ...fields.map((f) => this.field(f, settings)))),
    h('section', { class: 'set-section' }, h('h3', { i18n: 'settings.changes' }),
      h('p', { class: 'help', i18n: 'settings.undo_help' }),
      h('button', { class: 'btn', type: 'button', icon: 'undo', onclick: () => this.handlers.onUndoLast() },
        h('span', { i18n: 'settings.undo_last' }))));
    this.update(settings);
  }

  /** New values from Core (saved here or changed elsewhere); the field being edited is kept. */
  update(settings) {
    this.settings = settings;
    for (const [name, control] of this.controls) {
      if (control.typing && control.root.contains(document.activeElement)) continue;
      if (name in settings) control.set(settings[name], settings);
    }
  }

  field(spec, settings) {
    const id = `set-${spec.name}`;
    const error = h('div', { class: 'field-error', role: 'alert', hidden: true });
    const help = t(`set.${spec.name}_help`) !== `set.${spec.name}_help`
      ? h('p', { class: `help${spec.warn ? ' warn' : ''}`, id: `${id}-help`, i18n: `set.${spec.name}_help` }) : null;
    const save = (value) => this.save(spec.name, value);
    let input;
    let set;
    let root;
    switch (spec.type) {
      case 'switch':
        input = h('input', { type: 'checkbox', id, role: 'switch', 'aria-describedby': help ? `${id}-help` : null,
          onchange: () => save(input.checked) });
        set = (v) => { input.checked = Boolean(v); };
        root = h('div', { class: 'field switch-field' }, h('label', { class: 'switch', for: id }, input,
          h('span', { class: 'track', 'aria-hidden': 'true' }), h('span', { class: 'label', i18n: `set.${spec.name}` })), help, error);
        break;
      case 'select':
      case 'model': {
        input = h('select', { id, class: 'input', onchange: () => save(input.value) });
        set = (v) => this.fillSelect(input, spec, v);
        root = h('div', { class: 'field' }, h('label', { for: id, i18n: `set.${spec.name}` }), input, help, error);
        break;
      }
      case 'radio': {
        const boxes = spec.options.map((opt) => h('label', { class: `radio${spec.inline ? ' inline' : ''}` },
          h('input', { type: 'radio', name: id, value: opt, onchange: (e) => save(e.target.value) }),
          h('span', { class: 'radio-text' }, h('span', { i18n: `set.${spec.name}.${opt}` }),
            spec.inline ? null : h('span', { class: 'help', i18n: `set.${spec.name}.${opt}_help` }))));
        set = (v) => boxes.forEach((b) => { b.querySelector('input').checked = b.querySelector('input').value === v; });
        root = h('fieldset', { class: `field radios${spec.inline ? ' inline' : ''}` },
          h('legend', { i18n: `set.${spec.name}` }), h('div', { class: 'radio-group' }, boxes), help, error);
        break;
      }
      case 'textarea':
        input = h('textarea', { id, class: 'input', rows: 3, onchange: () => save(input.value) });
        set = (v) => { input.value = v ?? ''; };
        root = h('div', { class: 'field' }, h('label', { for: id, i18n: `set.${spec.name}` }), input, help, error);
        break;
      case 'tools':
        ({ root, set } = toolList(FILE_TOOLS, (disabled) => save(disabled)));
        root.append(error);
        break;
      case 'dirs':
        ({ root, set } = dirList(spec.name, {
          onChange: (list) => save(list),
          onPick: this.handlers.onPickFolder,
        }));
        root.append(error);
        break;
      case 'hotkey':
        ({ root, set } = hotkeyInput(id, (v) => save(v)));
        root.append(help || '', error);
        root.addEventListener('metona:hotkey-invalid', () => this.showError('hotkey', t('set.hotkey_invalid')));
        break;
      default: { // text, number, password
        input = h('input', {
          id, class: 'input', type: spec.type, min: spec.min, max: spec.max, step: spec.step,
          inputmode: spec.inputmode, pattern: spec.pattern, spellcheck: 'false', autocomplete: 'off',
          'aria-describedby': help ? `${id}-help` : null,
        });
        input.addEventListener('change', () => {
          if (!input.checkValidity()) {
            this.showError(spec.name, spec.type === 'number'
              ? t('settings.range', { min: spec.min, max: spec.max }) : t('settings.invalid'));
            return;
          }
          if (spec.local) this.saveApiKey(input.value);
          else save(spec.type === 'number' ? Number(input.value) : input.value);
        });
        set = (v) => { if (!spec.local) input.value = v ?? ''; };
        root = h('div', { class: 'field' }, h('label', { for: id, i18n: `set.${spec.name}` }), input, help, error);
      }
    }
    // A field being typed in keeps what the user typed; lists and switches always refresh.
    const typing = ['text', 'number', 'password', 'textarea', 'hotkey'].includes(spec.type);
    this.controls.set(spec.name, { root, set, error, typing });
    if (spec.local) set('', settings);
    return root;
  }

  fillSelect(select, spec, value) {
    const options = spec.type === 'model'
      ? ['', ...new Set([...this.models.map((m) => m.name), value].filter(Boolean))]
      : spec.options;
    select.replaceChildren(...options.map((opt) => {
      const option = h('option', { value: opt });
      if (spec.type === 'model') {
        if (opt) option.textContent = opt;
        else tx(option, 'set.default_model.first');
      } else tx(option, `set.${spec.name}.${opt}`);
      return option;
    }));
    select.value = value ?? '';
  }

  async save(name, value) {
    this.showError(name, null);
    const result = await this.handlers.onPatch({ [name]: value });
    if (!result) return;
    if (result.ok) {
      this.flashSaved();
      return;
    }
    for (const [key, message] of Object.entries(result.errors || {})) {
      this.showError(key.split('.')[0], t('settings.rejected', { reason: message }));
    }
    this.update(result.settings);
  }

  async saveApiKey(value) {
    this.showError('api_key', null);
    const problem = await this.handlers.onApiKey(value);
    if (problem) this.showError('api_key', problem);
    else this.flashSaved();
  }

  // A standing note under a field (e.g. no global hotkey on Wayland), in the page's language.
  showNote(name, key) {
    const control = this.controls.get(name);
    if (!control || control.root.querySelector('.note')) return;
    control.root.append(h('p', { class: 'help warn note', i18n: key }));
  }

  showError(name, message) {
    const control = this.controls.get(name);
    if (!control) return;
    control.error.hidden = !message;
    control.error.textContent = message || '';
    control.root.classList.toggle('invalid', Boolean(message));
  }

  flashSaved() {
    this.savedNote.replaceChildren(icon('check'), h('span', { i18n: 'settings.saved' }));
    this.savedNote.classList.add('show');
    clearTimeout(this.savedTimer);
    this.savedTimer = setTimeout(() => this.savedNote.classList.remove('show'), 1500);
  }

  setModels(models) {
    this.models = models;
    const control = this.controls.get('default_model');
    if (control && this.settings) control.set(this.settings.default_model);
  }
}
