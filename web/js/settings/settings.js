// The settings panel: every setting. Each control saves on change through
// Core.update_settings (which validates again); errors show under the field they belong to.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { hasText, languages, t } from '../lib/i18n.js';
import { dirList, toolList, hotkeyInput, builtinRules } from './settings_parts.js';
import { selectBox, radioGroup, numberField } from '../lib/controls.js';
import { widens, namesRisk, CONFIRM, riskBox } from './settings_guard.js';
import { setModal, trapTab } from '../lib/focustrap.js';
import { mcpSection } from './settings_mcp.js';
import { permissionsSection } from './settings_permissions.js';

// A widening change counts only from a real user gesture made after the panel has been on
// screen this long (like approvals: a keystroke meant for something else cannot make it).
const ARM_MS = 450;
const GESTURE_MS = 2000;

const FILE_TOOLS = [
  'read_file',
  'list_directory',
  'search_files',
  'write_file',
  'create_directory',
  'delete_file',
  'edit_file',
  'move_file',
  'read_multiple_files',
  'directory_tree',
  'get_file_info',
  'list_allowed_directories',
  'git_status',
  'git_diff',
  'git_log',
  'git_commit',
];

// The sections, in order, as [id, title key, [field, ...]]: a field is {name, type, ...}, or
// {heading} for a sub-heading. What most people change comes first; the limits and internals
// that only matter when something goes wrong are under Advanced.
const LAYOUT = [
  [
    'general',
    'settings.group.general',
    [
      { name: 'language', type: 'select', options: ['system', 'en', 'zh-CN'] },
      { name: 'hotkey', type: 'hotkey' },
      { name: 'start_at_login', type: 'switch' },
      // Shown once the desktop app has these settings (an older Core leaves them out).
      { name: 'hide_on_focus_loss', type: 'switch', optional: true },
    ],
  ],
  [
    'server',
    'settings.server',
    [
      { name: 'provider', type: 'select', options: ['ollama', 'openai'] },
      { name: 'endpoint', type: 'text', inputmode: 'url', pattern: 'https?://.+' },
      { name: 'api_key', type: 'password', local: true },
      { name: 'default_model', type: 'model' },
      { name: 'vision_models', type: 'names', optional: true },
      { heading: 'settings.generation' },
      { name: 'think', type: 'switch' },
      { name: 'temperature', type: 'number', min: 0, max: 2, step: 0.1 },
      { name: 'system_prompt', type: 'textarea' },
    ],
  ],
  [
    'tools',
    'settings.group.tools',
    [
      { name: 'tools_enabled', type: 'switch' },
      {
        name: 'confirmation_mode',
        type: 'radio',
        options: ['read_only', 'all_writes', 'delete_only', 'full_auto'],
      },
      { name: 'confirmation_timeout', type: 'number', min: 5, max: 86400, step: 1 },
      { name: 'run_command_enabled', type: 'switch', warn: true },
      { name: 'sandbox_enabled', type: 'switch' },
      { name: 'allow_writes_without_undo', type: 'switch', warn: true },
      { heading: 'settings.folders' },
      { name: 'allowed_dirs', type: 'dirs' },
      { name: 'blocked_dirs', type: 'dirs' },
      { name: 'web_allowed_hosts', type: 'names' },
      { heading: 'settings.tools' },
      { name: 'disabled_tools', type: 'tools' },
      { heading: 'settings.permissions', optional: 'tool_rules' },
      { name: 'tool_rules', type: 'permissions', optional: true },
      { heading: 'settings.changes' },
      { name: 'undo_last', type: 'undo', local: true },
    ],
  ],
  ['mcp', 'settings.mcp', [{ name: 'mcp_servers', type: 'mcp', optional: true }]],
  [
    'appearance',
    'settings.group.appearance',
    [{ name: 'theme', type: 'radio', options: ['system', 'light', 'dark'], inline: true }],
  ],
  [
    'advanced',
    'settings.group.advanced',
    [
      { help: 'settings.advanced_help' },
      { name: 'num_ctx', type: 'number', min: 512, max: 1048576, step: 512 },
      { name: 'max_rounds', type: 'number', min: 1, max: 100, step: 1 },
      { name: 'max_answer_chars', type: 'number', min: 1000, max: 100000000, step: 1000 },
      { name: 'keep_alive', type: 'text' },
      { name: 'max_tool_calls_per_round', type: 'number', min: 1, max: 1000, step: 1 },
      { name: 'tool_result_limit', type: 'number', min: 1000, max: 1000000, step: 1000 },
      { name: 'budget_files_removed', type: 'number', min: 0, max: 1000000, step: 1 },
      { name: 'budget_written_mb', type: 'number', min: 0, max: 1000000, step: 1 },
      { name: 'budget_commands', type: 'number', min: 0, max: 100000, step: 1 },
      {
        name: 'popup_unload_after_s',
        type: 'number',
        min: 0,
        max: 604800,
        step: 60,
        optional: true,
      },
    ],
  ],
];

export class SettingsPanel {
  constructor(
    panel,
    { onPatch, onApiKey, onPickFolder, onUndoLast, onClose, onPermissions, onRevokeGrant },
  ) {
    this.panel = panel;
    this.body = panel.querySelector('#settings-body');
    this.savedNote = panel.querySelector('#settings-saved');
    this.handlers = { onPatch, onApiKey, onPickFolder, onUndoLast, onPermissions, onRevokeGrant };
    this.controls = new Map(); // name -> { set(value), error element }
    panel.querySelector('#settings-close').addEventListener('click', onClose);
    const note = (event) => {
      if (event.isTrusted) this.gesture = { target: event.target, at: event.timeStamp };
    };
    panel.addEventListener('pointerdown', note, true);
    panel.addEventListener('keydown', note, true);
    trapTab(panel);
  }

  get isOpen() {
    return !this.panel.hidden;
  }

  /** The built-in refusals arrived (asked once per page): show them under the user's list. */
  setBuiltins(rules) {
    this.rules = rules;
    const open = this.builtins?.open;
    if (this.builtins?.isConnected) {
      const fresh = builtinRules(rules);
      fresh.open = Boolean(open);
      this.builtins.replaceWith(fresh);
      this.builtins = fresh;
    }
  }

  open(settings, models) {
    this.build(settings, models);
    this.panel.hidden = false;
    setModal(this.panel, true, '.topbar');
    this.armedAt = performance.now() + ARM_MS;
    delete this.panel.dataset.armed;
    clearTimeout(this.armTimer);
    this.armTimer = setTimeout(() => {
      this.panel.dataset.armed = 'true';
    }, ARM_MS);
    this.body.scrollTop = 0;
    this.panel.querySelector('#settings-close').focus();
  }

  close() {
    this.panel.hidden = true;
    setModal(this.panel, false, '.topbar');
  }

  build(settings, models) {
    this.controls.clear();
    this.models = models;
    const shown = (f) => !f.optional || (f.optional === true ? f.name : f.optional) in settings;
    const sections = LAYOUT.map(([id, title, fields]) =>
      h(
        'section',
        { class: 'set-section', id: `set-group-${id}`, 'aria-labelledby': `set-group-${id}-title` },
        h('h3', { id: `set-group-${id}-title`, tabindex: '-1', i18n: title }),
        ...fields.filter(shown).map((f) => this.part(f, settings)),
      ),
    );
    this.body.replaceChildren(this.sectionNav(), ...sections);
    this.update(settings);
  }

  /** The row of section names over the page: each goes to its section and puts the focus on
   * its title, so the keyboard lands there too. */
  sectionNav() {
    return h(
      'nav',
      { class: 'set-nav', i18nLabel: 'settings.sections' },
      LAYOUT.map(([id, title]) =>
        h('button', {
          class: 'set-nav-item',
          type: 'button',
          i18n: title,
          dataset: { group: id },
          onclick: () => {
            const heading = this.body.querySelector(`#set-group-${id}-title`);
            heading.closest('.set-section').scrollIntoView({ block: 'start' });
            heading.focus({ preventScroll: true });
          },
        }),
      ),
    );
  }

  /** A sub-heading, a section's note, or a field. */
  part(spec, settings) {
    if (spec.heading) return h('h4', { class: 'set-sub', i18n: spec.heading });
    if (spec.help) return h('p', { class: 'help', i18n: spec.help });
    return this.field(spec, settings);
  }

  /** New values from Core (saved here or changed elsewhere); the field being edited is kept. */
  update(settings) {
    this.settings = settings;
    for (const [name, control] of this.controls) {
      if (control.typing && control.root.contains(document.activeElement)) continue;
      if (control.root.querySelector('.risk')) continue; // shows the change waiting to be confirmed
      if (name in settings) control.set(settings[name], settings);
    }
  }

  field(spec, settings) {
    const id = `set-${spec.name}`;
    const error = h('div', { class: 'field-error', role: 'alert', hidden: true });
    const help =
      t(`set.${spec.name}_help`) !== `set.${spec.name}_help`
        ? h('p', {
            class: `help${spec.warn ? ' warn' : ''}`,
            id: `${id}-help`,
            i18n: `set.${spec.name}_help`,
          })
        : null;
    const save = (value, event) => this.save(spec.name, value, event);
    let input;
    let set;
    let root;
    let showErrors = null;
    let status = null;
    switch (spec.type) {
      case 'switch':
        input = h('input', {
          type: 'checkbox',
          id,
          role: 'switch',
          'aria-describedby': help ? `${id}-help` : null,
          onchange: (event) => save(input.checked, event),
        });
        set = (v) => {
          input.checked = Boolean(v);
        };
        root = h(
          'div',
          { class: 'field switch-field' },
          h(
            'label',
            { class: 'switch', for: id },
            input,
            h('span', { class: 'track', 'aria-hidden': 'true' }),
            h('span', { class: 'label', i18n: `set.${spec.name}` }),
          ),
          help,
          error,
        );
        break;
      case 'select':
      case 'model': {
        const box = selectBox({
          id,
          labelId: `${id}-label`,
          onChange: (value, event) => save(value, event),
        });
        set = (v) => box.set(v ?? '', this.optionsFor(spec, v));
        root = h(
          'div',
          { class: 'field' },
          h('label', { id: `${id}-label`, for: id, i18n: `set.${spec.name}` }),
          box.root,
          help,
          error,
        );
        break;
      }
      case 'radio': {
        const group = radioGroup({
          id,
          labelId: `${id}-label`,
          inline: spec.inline,
          choices: spec.options.map((opt) => ({
            value: opt,
            key: `set.${spec.name}.${opt}`,
            helpKey: spec.inline ? null : `set.${spec.name}.${opt}_help`,
          })),
          onChange: (value, event) => save(value, event),
        });
        set = (v) => group.set(v);
        root = h(
          'div',
          { class: `field radios${spec.inline ? ' inline' : ''}` },
          h('div', { class: 'legend', id: `${id}-label`, i18n: `set.${spec.name}` }),
          group.root,
          help,
          error,
        );
        break;
      }
      case 'number': {
        const num = numberField({
          id,
          min: spec.min,
          max: spec.max,
          step: spec.step,
          describedBy: help ? `${id}-help` : null,
          onCommit: (value, event) => {
            if (value == null)
              this.showError(spec.name, t('settings.range', { min: spec.min, max: spec.max }));
            else save(value, event);
          },
        });
        set = (v) => num.set(v);
        root = h(
          'div',
          { class: 'field' },
          h('label', { for: id, i18n: `set.${spec.name}` }),
          num.root,
          help,
          error,
        );
        break;
      }
      case 'textarea':
        input = h('textarea', { id, class: 'input', rows: 3, onchange: () => save(input.value) });
        set = (v) => {
          input.value = v ?? '';
        };
        root = h(
          'div',
          { class: 'field' },
          h('label', { for: id, i18n: `set.${spec.name}` }),
          input,
          help,
          error,
        );
        break;
      case 'names': // a list of names, one a line
        input = h('textarea', {
          id,
          class: 'input',
          rows: 2,
          spellcheck: 'false',
          'aria-describedby': help ? `${id}-help` : null,
          // The event: a list that gives the assistant more power (web_allowed_hosts) changes
          // only by the person's own hand (``trusted``).
          onchange: (event) =>
            save(
              input.value
                .split('\n')
                .map((name) => name.trim())
                .filter(Boolean),
              event,
            ),
        });
        set = (v) => {
          input.value = (v || []).join('\n');
        };
        root = h(
          'div',
          { class: 'field' },
          h('label', { for: id, i18n: `set.${spec.name}` }),
          input,
          help,
          error,
        );
        break;
      case 'tools':
        ({ root, set } = toolList(FILE_TOOLS, (disabled, event) => save(disabled, event)));
        root.append(error);
        break;
      case 'dirs':
        ({ root, set } = dirList(spec.name, {
          onChange: (list, event) => save(list, event),
          onPick: this.handlers.onPickFolder,
        }));
        root.append(error);
        if (spec.name === 'blocked_dirs') root.append((this.builtins = builtinRules(this.rules)));
        break;
      case 'mcp':
        ({ root, set, showErrors, status } = mcpSection({
          onChange: (servers, event) => save(servers, event),
        }));
        root.append(error);
        break;
      case 'permissions':
        ({ root, set } = permissionsSection({
          load: this.handlers.onPermissions,
          onRevoke: this.handlers.onRevokeGrant,
          onRules: (rules, event) => save(rules, event),
        }));
        root.append(error);
        break;
      case 'undo':
        set = () => {};
        root = h(
          'div',
          { class: 'field' },
          h('p', { class: 'help', i18n: 'settings.undo_help' }),
          h(
            'button',
            {
              class: 'btn',
              type: 'button',
              icon: 'undo',
              onclick: () => this.handlers.onUndoLast(),
            },
            h('span', { i18n: 'settings.undo_last' }),
          ),
          error,
        );
        break;
      case 'hotkey':
        ({ root, set } = hotkeyInput(id, (v) => save(v)));
        root.append(help || '', error);
        root.addEventListener('metona:hotkey-invalid', () =>
          this.showError('hotkey', t('set.hotkey_invalid')),
        );
        break;
      default: {
        // text, password
        input = h('input', {
          id,
          class: 'input',
          type: spec.type,
          inputmode: spec.inputmode,
          pattern: spec.pattern,
          spellcheck: 'false',
          autocomplete: 'off',
          'aria-describedby': help ? `${id}-help` : null,
        });
        input.addEventListener('change', () => {
          if (!input.checkValidity()) {
            this.showError(spec.name, t('settings.invalid'));
            return;
          }
          if (spec.local) this.saveApiKey(input.value);
          else save(input.value);
        });
        set = (v) => {
          if (!spec.local) input.value = v ?? '';
        };
        root = h(
          'div',
          { class: 'field' },
          h('label', { for: id, i18n: `set.${spec.name}` }),
          input,
          help,
          error,
        );
      }
    }
    // A field being typed in keeps what the user typed; lists and switches always refresh.
    const typing = ['text', 'number', 'password', 'textarea', 'names', 'hotkey'].includes(
      spec.type,
    );
    this.controls.set(spec.name, { root, set, error, typing, showErrors, status });
    if (spec.local) set('', settings);
    return root;
  }

  optionsFor(spec, value) {
    if (spec.name === 'language') {
      // every catalogue Core found; one without a name in this language shows its own name
      const named = (l) =>
        hasText(`set.language.${l.code}`)
          ? { value: l.code, key: `set.language.${l.code}` }
          : { value: l.code, text: l.name };
      return [{ value: 'system', key: 'set.language.system' }, ...languages().map(named)];
    }
    if (spec.type !== 'model')
      return spec.options.map((opt) => ({ value: opt, key: `set.${spec.name}.${opt}` }));
    const names = [...new Set([...(this.models || []).map((m) => m.name), value].filter(Boolean))];
    return [
      { value: '', key: 'set.default_model.first' },
      ...names.map((name) => ({ value: name, text: name })),
    ];
  }

  /**
   * A real click or key press by the user on this control, once the panel has been on screen a
   * moment. event.isTrusted alone is not enough: the change event an engine fires for a
   * script's checkbox.click() counts as trusted, but no script can make a trusted pointerdown
   * or keydown, so the event must follow one of those inside the control.
   */
  trusted(event, root) {
    const g = this.gesture;
    if (!event || !event.isTrusted || !g || event.timeStamp < this.armedAt) return false;
    const since = event.timeStamp - g.at;
    return since >= -50 && since < GESTURE_MS && root.contains(g.target);
  }

  async save(name, value, event) {
    this.showError(name, null);
    if (widens(name, value, this.settings)) {
      if (!this.trusted(event, this.controls.get(name).root)) {
        // Not from the user's own hand (a script's click, a synthetic event): refused, shown.
        this.update(this.settings);
        this.showError(name, t('set.needs_click'));
        return;
      }
      if (namesRisk(name, value)) {
        this.confirmRisk(name, value);
        return;
      }
    }
    await this.commit(name, value);
  }

  /** Full auto and the sandbox off name their risk and wait for a second, real click. */
  confirmRisk(name, value) {
    const control = this.controls.get(name);
    control.root.querySelector('.risk')?.remove();
    const revert = () => {
      box.remove();
      control.set(this.settings[name], this.settings);
      control.root.querySelector('[tabindex="0"], input, button')?.focus();
    };
    const box = riskBox(CONFIRM[name], {
      armMs: ARM_MS,
      onConfirm: (event) => {
        if (!this.trusted(event, box)) return;
        box.remove();
        control.set(value, this.settings); // as confirmed, until Core's answer
        this.commit(name, value);
      },
      onCancel: revert,
    });
    control.root.append(box);
  }

  async commit(name, value) {
    const result = await this.handlers.onPatch({ [name]: value });
    if (!result) return;
    if (!result.rejected) {
      this.flashSaved();
      return;
    }
    const own = this.controls.get(name)?.showErrors; // a compound control places its own
    if (own) this.showError(name, own(result.rejected, result.codes || {}) || null);
    else {
      for (const [key, message] of Object.entries(result.rejected)) {
        this.showError(key.split('.')[0], t('settings.rejected', { reason: message }));
      }
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

  /** The MCP servers' live status (an mcp_status event). */
  mcpStatus(servers) {
    this.controls.get('mcp_servers')?.status?.(servers);
  }

  setModels(models) {
    this.models = models;
    const control = this.controls.get('default_model');
    if (control && this.settings) control.set(this.settings.default_model);
  }
}
