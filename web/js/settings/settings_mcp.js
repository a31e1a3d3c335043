// Settings › Tool servers (MCP): each configured server with its live status (pushed by Core as
// mcp_status events) and last error, an enable switch, its tools with their risk and a switch
// each, add / edit / remove, and a pasted Claude Desktop config. Every change is one whole new
// `mcp_servers` value saved through update_settings like any setting (so settings_guard decides
// which changes need the user's own click); secrets the file holds arrive masked as *** and ***
// sent back keeps them.
// Names, commands, errors and tool texts come from servers and files: set as text only.
import { h } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { call } from '../lib/bridge.js';
import { visible, visibleText } from '../lib/format.js';
import { secretBox } from './settings_mcp_secret.js';
import { osReasonArg } from '../chat/results.js';
import { numberField, selectBox } from '../lib/controls.js';

/** A server name the rules refuse (tray_app/mcp/config.py ``name_problem``: its code and
 * params), as a text key and args; null for any other reason. The refused character is written
 * visible (a bidi control as ⟨U+202E⟩). */
const NAME_CODES = new Set(['name_empty', 'name_bad_char', 'name_bad_start', 'name_too_long']);
function nameRefusal(code, params) {
  if (!NAME_CODES.has(code)) return null;
  return [`mcp.${code}`, { ...params, char: visible(String(params?.char ?? '')) }];
}

/** Why a server failed, in the page's language when Core sent a known cause
 * (``error_code``/``error_params``, tray_app/mcp/causes.py): the server's English detail then
 * stays only in the tooltip. A keyring failure keeps its detail beside it; an unknown cause is
 * its detail, as the server or the OS said it. Every value is shown as text, written visible. */
function causeArg(row, entry) {
  const params = row.error_params || {};
  const named = nameRefusal(row.error_code, params);
  if (named) return named;
  if (row.error_code === 'spawn_failed') {
    return [
      'mcp.cause_spawn_failed',
      { command: visible(String(entry.command || '?')), why: osReasonArg(params) },
    ];
  }
  if (row.error_code === 'unreachable')
    return ['mcp.cause_unreachable', { url: visible(String(entry.url || '?')) }];
  if (row.error_code === 'timed_out') return ['mcp.cause_timed_out'];
  return null;
}

function errorLine(row, entry) {
  const detail = visible(String(row.error));
  const cause = causeArg(row, entry);
  const line = h(
    'p',
    { class: 'mcp-error', role: 'status' },
    h('span', { i18n: 'mcp.last_error' }),
    ' ',
  );
  if (cause) {
    line.append(h('span', { class: 'mcp-error-why', i18n: cause, title: detail }));
    return line;
  }
  if (row.error_code === 'keyring_unreadable')
    line.append(h('span', { class: 'mcp-error-why', i18n: 'mcp.keyring_unreadable' }), ' ');
  line.append(h('span', { class: 'mcp-error-text', text: detail }));
  return line;
}

const STATUS_KEY = {
  ready: 'mcp.status_running',
  starting: 'mcp.status_starting',
  failed: 'mcp.status_failed',
  stopped: 'mcp.status_stopped',
  disabled: 'mcp.status_disabled',
  invalid: 'mcp.status_invalid',
};
const RISK_KEY = {
  read: 'mcp.risk_read',
  write: 'mcp.risk_write',
  destructive: 'mcp.risk_destructive',
};

const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** "KEY=value" lines -> object; null (and the bad line) when a line has no separator. */
function pairs(text, sep) {
  const out = {};
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) return { bad: line };
    out[line.slice(0, at).trim()] = line.slice(at + sep.length).trim();
  }
  return { out };
}

const unpair = (obj, sep) =>
  Object.entries(obj || {})
    .map(([k, v]) => `${k}${sep}${v}`)
    .join('\n');

/**
 * The section as a settings control: { root, set(servers), showErrors(rejected) }.
 * onChange(servers, event) saves a whole new mcp_servers value.
 */
export function mcpSection({ onChange }) {
  let servers = {};
  let status = new Map();
  let editing = null; // null, '' (a new server) or the name being edited
  const openTools = new Set(); // servers whose tool list the user opened: kept open on refresh
  const list = h('ul', { class: 'mcp-list', 'aria-live': 'polite' });
  const formBox = h('div', { class: 'mcp-form-box' });
  const addBtn = h('button', {
    class: 'btn small',
    type: 'button',
    id: 'mcp-add',
    i18n: 'mcp.add',
    onclick: () => edit(''),
  });
  const pasteNote = h('p', { class: 'help', id: 'mcp-paste-note', hidden: true });
  const pasteError = h('div', { class: 'field-error', role: 'alert', hidden: true });
  const paste = h('textarea', {
    class: 'input mono',
    id: 'mcp-paste',
    rows: 4,
    spellcheck: 'false',
    'aria-describedby': 'mcp-paste-help',
  });
  const importBtn = h('button', {
    class: 'btn small',
    type: 'button',
    id: 'mcp-import',
    i18n: 'mcp.import',
    onclick: (event) => importPaste(event),
  });
  const pasteBox = h(
    'details',
    { class: 'mcp-paste' },
    h('summary', { i18n: 'mcp.paste_title' }),
    h('label', { for: 'mcp-paste', i18n: 'mcp.paste_label' }),
    h('p', { class: 'help', id: 'mcp-paste-help', i18n: 'mcp.paste_help' }),
    paste,
    pasteError,
    importBtn,
    pasteNote,
  );
  const root = h(
    'div',
    { class: 'field mcp-field' },
    h('p', { class: 'help', i18n: 'mcp.help' }),
    list,
    h('div', { class: 'mcp-actions' }, addBtn),
    formBox,
    pasteBox,
  );

  const save = (next, event) => onChange(next, event);

  function render() {
    const names = Object.keys(servers);
    list.replaceChildren(...names.map((name) => serverItem(name)));
    for (const [name, row] of status) {
      if (row.status === 'invalid' && !(name in servers)) list.append(serverItem(name));
    }
    if (!list.children.length) list.append(h('li', { class: 'mcp-none', i18n: 'mcp.none' }));
  }

  function serverItem(name) {
    const entry = servers[name] || {};
    const row = status.get(name);
    const enabled = entry.enabled !== false;
    const state = !enabled ? 'disabled' : row?.status || 'starting';
    const id = `mcp-${[...name].map((c) => (/[A-Za-z0-9_-]/.test(c) ? c : `_${c.codePointAt(0)}`)).join('')}`;
    const toggle = h('input', {
      type: 'checkbox',
      role: 'switch',
      id: `${id}-on`,
      checked: enabled,
      onchange: (event) =>
        save({ ...servers, [name]: { ...entry, enabled: toggle.checked } }, event),
    });
    const head = h(
      'div',
      { class: 'mcp-head' },
      h('span', { class: 'mcp-name', text: visible(name), title: visible(name) }),
      h('span', { class: 'cap mcp-transport', text: entry.url ? 'HTTP' : 'stdio' }),
      h('span', {
        class: 'badge mcp-status',
        dataset: { status: state },
        i18n: STATUS_KEY[state] || 'mcp.status_starting',
      }),
    );
    const what = entry.url || [entry.command, ...(entry.args || [])].filter(Boolean).join(' ');
    const item = h(
      'li',
      { class: 'mcp-server', dataset: { name } },
      head,
      h('div', { class: 'mcp-what mono', text: visible(String(what || '')) }),
      row?.error ? errorLine(row, entry) : null,
      h(
        'div',
        { class: 'mcp-controls' },
        h(
          'label',
          { class: 'switch', for: `${id}-on` },
          toggle,
          h('span', { class: 'track', 'aria-hidden': 'true' }),
          h('span', { class: 'label', i18n: 'mcp.enabled' }),
        ),
        name in servers
          ? h('button', {
              class: 'btn small mcp-edit',
              type: 'button',
              i18nLabel: ['mcp.edit_named', { name: visible(name) }],
              i18n: 'mcp.edit',
              onclick: () => edit(name),
            })
          : null,
        name in servers
          ? h('button', {
              class: 'btn small mcp-remove',
              type: 'button',
              i18nLabel: ['mcp.remove_named', { name: visible(name) }],
              i18n: 'common.remove',
              onclick: (event) => remove(name, event),
            })
          : null,
      ),
    );
    if (!(name in servers)) toggle.disabled = true;
    if (row?.tools?.length && enabled) item.append(toolList(name, entry, row.tools));
    return item;
  }

  function toolList(name, entry, tools) {
    const off = entry.disabled_tools || [];
    const rows = tools.map((tool) => {
      const box = h('input', {
        type: 'checkbox',
        checked: !off.includes(tool.name),
        dataset: { tool: tool.name },
        onchange: (event) => {
          const rest = off.filter((n) => n !== tool.name);
          save(
            {
              ...servers,
              [name]: { ...entry, disabled_tools: box.checked ? rest : [...rest, tool.name] },
            },
            event,
          );
        },
      });
      return h(
        'label',
        { class: 'tool-row mcp-tool' },
        box,
        h(
          'span',
          { class: 'tool-text' },
          h('code', { class: 'tool-title', text: visible(tool.name) }),
          // A description's line breaks and tabs are its text (shown as breaks); bidi and other
          // controls are written out.
          tool.description
            ? h('span', { class: 'help mcp-tool-description', text: visibleText(tool.description) })
            : null,
        ),
        h('span', {
          class: `cap mcp-risk risk-${tool.risk}`,
          i18n:
            tool.read_only_hint && tool.risk === 'write'
              ? 'mcp.risk_read_asks'
              : RISK_KEY[tool.risk] || 'mcp.risk_write',
        }),
      );
    });
    const box = h(
      'details',
      { class: 'mcp-tools', open: openTools.has(name) },
      h('summary', { i18n: ['mcp.tools', { n: tools.length }] }),
      h('div', { class: 'tool-list' }, rows),
    );
    box.addEventListener('toggle', () => (box.open ? openTools.add(name) : openTools.delete(name)));
    return box;
  }

  function remove(name, event) {
    const next = { ...servers };
    delete next[name];
    if (editing === name) closeForm();
    save(next, event);
    addBtn.focus();
  }

  function closeForm() {
    editing = null;
    formBox.replaceChildren();
  }

  // ---- the add / edit form ------------------------------------------------------------------

  function edit(name) {
    editing = name;
    const entry = name ? servers[name] || {} : { enabled: true };
    const errors = {};
    const field = (key, control, helpKey) => {
      errors[key] = h('div', {
        class: 'field-error',
        role: 'alert',
        hidden: true,
        dataset: { field: key },
      });
      return h(
        'div',
        { class: `field mcp-f-${key}` },
        h('label', { id: `mcp-f-${key}-label`, for: `mcp-f-${key}`, i18n: `mcp.f_${key}` }),
        control.root || control,
        helpKey ? h('p', { class: 'help', i18n: helpKey }) : null,
        errors[key],
      );
    };
    // The page's own controls, as in the rest of Settings (controls.js): a select that follows
    // the theme, a number field with its − / + buttons, a switch.
    const choice = (key, value, keys) => {
      let current = value;
      const box = selectBox({
        id: `mcp-f-${key}`,
        labelId: `mcp-f-${key}-label`,
        onChange: (next) => {
          current = next;
          box.set(next, options);
          box.root.dispatchEvent(new Event('change'));
        },
      });
      const options = keys.map(([v, k]) => ({ value: v, key: k }));
      box.set(value, options);
      return {
        root: box.root,
        get value() {
          return current;
        },
        addEventListener: (...a) => box.root.addEventListener(...a),
        focus: () => box.root.querySelector('button').focus(),
      };
    };
    const number = (key, value, props) => {
      const num = numberField({ id: `mcp-f-${key}`, ...props, onCommit: () => {} });
      num.set(value);
      return {
        root: num.root,
        get value() {
          return num.input.value;
        },
        focus: () => num.input.focus(),
      };
    };
    const toggle = (key, checked, labelKey) => {
      const box = h('input', { type: 'checkbox', role: 'switch', id: `mcp-f-${key}`, checked });
      const root = h(
        'div',
        { class: 'field switch-field' },
        h(
          'label',
          { class: 'switch', for: `mcp-f-${key}` },
          box,
          h('span', { class: 'track', 'aria-hidden': 'true' }),
          h('span', { class: 'label', i18n: labelKey }),
        ),
      );
      return {
        root,
        get checked() {
          return box.checked;
        },
      };
    };
    const input = (key, value, props = {}) =>
      h('input', {
        class: 'input',
        id: `mcp-f-${key}`,
        type: 'text',
        spellcheck: 'false',
        autocomplete: 'off',
        value: value ?? '',
        ...props,
      });
    const area = (key, value) =>
      h('textarea', {
        class: 'input mono',
        id: `mcp-f-${key}`,
        rows: 3,
        spellcheck: 'false',
        value: value ?? '',
      });
    const kind = entry.url ? 'http' : 'stdio';
    const f = {
      name: input('name', name),
      kind: choice('kind', kind, [
        ['stdio', 'mcp.kind_stdio'],
        ['http', 'mcp.kind_http'],
      ]),
      command: input('command', entry.command),
      args: area('args', (entry.args || []).join('\n')),
      env: area('env', unpair(entry.env, '=')),
      cwd: input('cwd', entry.cwd),
      url: input('url', entry.url, { inputmode: 'url' }),
      headers: area('headers', unpair(entry.headers, ': ')),
      timeout_s: number('timeout_s', entry.timeout_s ?? 60, { min: 1, max: 3600, step: 1 }),
      ping_s: number('ping_s', entry.ping_s ?? 30, { min: 0, max: 3600, step: 1 }),
      trust: choice('trust', entry.trust || 'ask', [
        ['ask', 'mcp.trust_ask'],
        ['trust_read_only', 'mcp.trust_read_only'],
      ]),
      enabled: toggle('enabled', entry.enabled !== false, 'mcp.enabled'),
    };
    const stdio = h(
      'div',
      { class: 'mcp-stdio' },
      field('command', f.command),
      field('args', f.args, 'mcp.args_help'),
      field('env', f.env, 'mcp.secret_help'),
      field('cwd', f.cwd),
    );
    const http = h(
      'div',
      { class: 'mcp-http' },
      field('url', f.url),
      field('headers', f.headers, 'mcp.headers_help'),
    );
    const secrets = secretBox({
      kind: () => f.kind.value,
      serverName: () => f.name.value.trim(),
      env: f.env,
      headers: f.headers,
    });
    const showKind = () => {
      stdio.hidden = f.kind.value !== 'stdio';
      http.hidden = f.kind.value !== 'http';
    };
    f.kind.addEventListener('change', showKind);
    showKind();
    const formError = h('div', {
      class: 'field-error',
      role: 'alert',
      hidden: true,
      dataset: { field: '' },
    });
    errors[''] = formError;
    const form = h(
      'form',
      { class: 'mcp-form', 'aria-labelledby': 'mcp-form-title', novalidate: true },
      h('h4', {
        id: 'mcp-form-title',
        i18n: name ? ['mcp.edit_title', { name: visible(name) }] : 'mcp.add_title',
      }),
      field('name', f.name),
      field('kind', f.kind),
      stdio,
      http,
      secrets.root,
      field('timeout_s', f.timeout_s),
      field('ping_s', f.ping_s, 'mcp.ping_help'),
      field('trust', f.trust, 'mcp.trust_help'),
      f.enabled.root,
      formError,
      h(
        'div',
        { class: 'mcp-form-actions' },
        h('button', {
          class: 'btn small',
          type: 'button',
          i18n: 'common.cancel',
          onclick: () => {
            closeForm();
            addBtn.focus();
          },
        }),
        h('button', {
          class: 'btn small primary',
          type: 'submit',
          id: 'mcp-save',
          i18n: 'mcp.save',
        }),
      ),
    );
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        closeForm();
        addBtn.focus();
      }
    });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      for (const el of Object.values(errors)) {
        el.hidden = true;
        el.textContent = '';
      }
      const fail = (key, message) => {
        errors[key].hidden = false;
        errors[key].textContent = message;
        f[key]?.focus?.();
      };
      const newName = f.name.value.trim();
      if (!newName) return fail('name', t('mcp.need_name'));
      if (newName !== name && newName in servers) return fail('name', t('mcp.name_taken'));
      const next = { ...entry };
      for (const key of ['command', 'args', 'env', 'cwd', 'url', 'headers', 'type'])
        delete next[key];
      if (f.kind.value === 'stdio') {
        next.command = f.command.value.trim();
        next.args = lines(f.args.value);
        const env = pairs(f.env.value, '=');
        if (env.bad) return fail('env', t('mcp.bad_line', { line: visible(env.bad) }));
        next.env = env.out;
        if (f.cwd.value.trim()) next.cwd = f.cwd.value.trim();
      } else {
        next.url = f.url.value.trim();
        const headers = pairs(f.headers.value, ':');
        if (headers.bad) return fail('headers', t('mcp.bad_line', { line: visible(headers.bad) }));
        next.headers = headers.out;
        if (entry.type) next.type = entry.type;
      }
      const timeout = Number(f.timeout_s.value);
      if (!Number.isFinite(timeout) || timeout <= 0) return fail('timeout_s', t('mcp.bad_timeout'));
      next.timeout_s = timeout;
      // The same bounds as Core's (mcp/config.py), said in the page's language; Core checks again.
      const ping = f.ping_s.value.trim() === '' ? NaN : Number(f.ping_s.value);
      if (!Number.isFinite(ping) || (ping !== 0 && (ping < 5 || ping > 3600)))
        return fail('ping_s', t('mcp.bad_ping'));
      next.ping_s = ping;
      next.trust = f.trust.value;
      next.enabled = f.enabled.checked;
      const all = {};
      for (const [key, value] of Object.entries(servers)) {
        if (key === name) all[newName] = next;
        else all[key] = value;
      }
      if (!name || !(name in servers)) all[newName] = next;
      pending = { name: newName, errors, fail };
      save(all, event);
    });
    formBox.replaceChildren(form);
    f.name.focus();
  }

  let pending = null; // the form's save, until Core answers
  let refused = false; // Core refused the last change

  async function importPaste(event) {
    pasteError.hidden = true;
    pasteNote.hidden = true;
    try {
      const parsed = await call('mcp_parse_import', { text: paste.value });
      const replaced = Object.keys(parsed.servers).filter((n) => n in servers);
      const before = servers;
      refused = false;
      await save({ ...servers, ...parsed.servers }, event);
      if (servers === before || refused) return; // not saved: the section says why
      const notes = [
        t('mcp.imported', { names: Object.keys(parsed.servers).map(visible).join(', ') }),
      ];
      if (replaced.length)
        notes.push(t('mcp.replaced', { names: replaced.map(visible).join(', ') }));
      if (parsed.plain_secrets.length)
        notes.push(t('mcp.plain_secrets', { names: parsed.plain_secrets.map(visible).join(', ') }));
      pasteNote.textContent = notes.join(' ');
      pasteNote.hidden = false;
    } catch (err) {
      const named = nameRefusal(err.details?.name_code, err.details?.name_params);
      const reason = named
        ? t('mcp.server_refused', { name: visible(String(err.details.server)), why: t(...named) })
        : visible(err.message || String(err));
      pasteError.textContent = t('mcp.paste_bad', { reason });
      pasteError.hidden = false;
    }
  }

  // ---- live status ---------------------------------------------------------------------------
  // Core pushes an mcp_status event on every change; the page asks only when the section is
  // (re)built, and an answer older than an event that came meanwhile is dropped.

  let pushed = 0; // mcp_status events seen

  function showStatus(rows) {
    const fresh = new Map((Array.isArray(rows) ? rows : []).map((r) => [r.name, r]));
    if (JSON.stringify([...fresh]) === JSON.stringify([...status])) return;
    status = fresh;
    if (!list.contains(document.activeElement) || document.activeElement === document.body)
      render();
    else renderKeepingFocus();
  }

  async function fetchStatus() {
    const seen = pushed;
    try {
      const rows = await call('mcp_status');
      if (seen === pushed) showStatus(rows);
    } catch {
      // a busy bridge: the next event brings the status
    }
  }

  /** An mcp_status event from Core. */
  const pushedStatus = (rows) => {
    pushed += 1;
    showStatus(rows);
  };

  function renderKeepingFocus() {
    const active = document.activeElement;
    const server = active.closest('.mcp-server')?.dataset.name;
    const tool = active.dataset?.tool;
    const cls =
      [...active.classList].find((c) => c.startsWith('mcp-')) ||
      (active.getAttribute('role') === 'switch' ? 'switch' : '');
    render();
    const item = [...list.children].find((li) => li.dataset.name === server);
    if (!item) return;
    const target = tool
      ? item.querySelector(`[data-tool="${CSS.escape(tool)}"]`)
      : cls === 'switch'
        ? item.querySelector('[role="switch"]')
        : cls
          ? item.querySelector(`.${cls}`)
          : null;
    target?.focus();
  }

  const set = (value) => {
    servers = value && typeof value === 'object' ? value : {};
    if (pending && pending.name in servers) {
      closeForm();
      pending = null;
    }
    renderKeepingFocus();
    fetchStatus();
  };

  /** Core refused the change: errors under the form's fields (or the section), a coded
   * reason (a refused name) in the page's language. */
  const showErrors = (rejected, codes = {}) => {
    refused = true;
    const other = [];
    for (const [key, message] of Object.entries(rejected)) {
      const named = nameRefusal(codes[key]?.code, codes[key]?.params);
      const text = t('settings.rejected', { reason: named ? t(...named) : message });
      const prefix = pending ? `mcp_servers.${pending.name}` : null;
      if (prefix && (key === prefix || key.startsWith(`${prefix}.`))) {
        const fieldName = key.slice(prefix.length + 1).split('.')[0];
        const box = pending.errors[fieldName] || pending.errors[''];
        box.hidden = false;
        box.textContent = text;
      } else other.push(text);
    }
    pending = null; // the form stays open with its errors
    return other.join(' ');
  };

  return { root, set, showErrors, status: pushedStatus };
}
