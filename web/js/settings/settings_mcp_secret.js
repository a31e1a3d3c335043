// The server form's "Store a secret in the keyring": the user types a variable or header name and
// its secret; Core keeps the secret in the OS keyring (set_mcp_secret) and answers only with the
// `keyring:NAME` reference, which replaces (or adds) that line in the form's env or headers box.
// The secret never comes back to the page: the field is emptied once it is stored.
import { h } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { call } from '../lib/bridge.js';
import { visible } from '../lib/format.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/; // the usual header names

/** `KEY<sep>value` lines with the one for `key` set to `value` (header names ignore case). */
function setLine(text, key, sep, value, header) {
  const same = (line) => {
    const at = line.indexOf(sep.trim());
    const name = at > 0 ? line.slice(0, at).trim() : '';
    return header ? name.toLowerCase() === key.toLowerCase() : name === key;
  };
  const rows = text.split('\n').filter((line) => line.trim());
  const line = `${key}${sep}${value}`;
  const at = rows.findIndex(same);
  if (at >= 0) rows[at] = line;
  else rows.push(line);
  return rows.join('\n');
}

/**
 * The block for the form: { root }. kind() is 'stdio' or 'http'; serverName() the name typed in
 * the form; env and headers the form's two text boxes.
 */
export function secretBox({ kind, serverName, env, headers }) {
  const key = h('input', {
    class: 'input',
    id: 'mcp-secret-key',
    type: 'text',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const value = h('input', {
    class: 'input',
    id: 'mcp-secret-value',
    type: 'password',
    spellcheck: 'false',
    autocomplete: 'new-password',
  });
  const note = h('p', { class: 'help', id: 'mcp-secret-note', role: 'status', hidden: true });
  const error = h('div', {
    class: 'field-error',
    id: 'mcp-secret-error',
    role: 'alert',
    hidden: true,
  });
  const store = h('button', {
    class: 'btn small',
    type: 'button',
    id: 'mcp-secret-store',
    i18n: 'mcp.keyring_store',
    onclick: () => save(),
  });
  const root = h(
    'details',
    { class: 'mcp-secret' },
    h('summary', { i18n: 'mcp.keyring_title' }),
    h('p', { class: 'help', i18n: 'mcp.keyring_help' }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'mcp-secret-key', i18n: 'mcp.keyring_key' }),
      key,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'mcp-secret-value', i18n: 'mcp.keyring_value' }),
      value,
    ),
    error,
    store,
    note,
  );
  // Enter in these fields stores the secret; it must not submit the server form.
  for (const input of [key, value]) {
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        save();
      }
    });
  }

  const fail = (messageKey, args, focus) => {
    error.textContent = t(messageKey, args);
    error.hidden = false;
    focus?.focus();
  };

  async function save() {
    error.hidden = true;
    note.hidden = true;
    const header = kind() === 'http';
    const name = key.value.trim();
    const server = serverName();
    if (!server) return fail('mcp.need_name', {}, null);
    if (!(header ? HEADER_NAME : ENV_NAME).test(name))
      return fail(header ? 'mcp.keyring_bad_header' : 'mcp.keyring_bad_env', {}, key);
    if (!value.value) return fail('mcp.keyring_need_value', {}, value);
    // HTTP clients send header values as ASCII: anything else could never be sent.
    if (header && !/^[\x20-\x7e]+$/.test(value.value))
      return fail('mcp.keyring_header_ascii', {}, value);
    store.disabled = true;
    try {
      const saved = await call('set_mcp_secret', {
        name: `${server}.${name}`,
        secret: value.value,
      });
      value.value = '';
      const box = header ? headers : env;
      box.value = setLine(box.value, name, header ? ': ' : '=', saved.reference, header);
      note.textContent = [
        t('mcp.keyring_stored', { key: visible(name), reference: visible(saved.reference) }),
        saved.stored_in_keyring
          ? ''
          : t('mcp.keyring_session_only', { reason: keyringProblem(saved) }),
      ]
        .join(' ')
        .trim();
      note.hidden = false;
    } catch (err) {
      fail('mcp.keyring_failed', { reason: visible(err.message || String(err)) }, value);
    } finally {
      store.disabled = false;
    }
  }

  return { root };
}

/** Why a secret is not in the keyring, in the page's language (Core's English detail only for a
 * problem this page has no words for). */
function keyringProblem(saved) {
  const known = ['locked', 'unavailable', 'no_keyring', 'insecure'];
  return known.includes(saved.problem)
    ? t(`keyring.${saved.problem}`)
    : visible(saved.warning || '');
}
