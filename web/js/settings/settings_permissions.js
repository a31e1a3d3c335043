// Settings › Permissions: every lasting rule (tool_rules) and every "don't ask again" of a chat,
// with what each covers, when it was made, and Remove. Core says which rules hold and why one
// is ignored (the same check `metona-tray rules` and doctor use); the page only shows it.
import { h } from '../lib/dom.js';
import { tx } from '../lib/i18n.js';
import { ago, visible } from '../lib/format.js';
import { toolLabel } from '../chat/toolcard.js';

const ACTIONS = ['allow', 'ask', 'deny'];

/** A rule list change that widens what the agent may do: a deny or ask taken away, or an allow
 * added (the page then needs the user's own click, as for every widening setting). */
export function rulesWiden(next, old) {
  const key = (r) => JSON.stringify([r?.tool, r?.folder ?? null, r?.action]);
  const before = new Set((old || []).map(key));
  const after = new Set((next || []).map(key));
  const gone = (old || []).some((r) => !after.has(key(r)) && r?.action !== 'allow');
  const added = (next || []).some((r) => !before.has(key(r)) && r?.action === 'allow');
  return gone || added;
}

/** The tool a rule names, as people read it: its text, "all tools of <server>", or its name. */
function toolText(name) {
  if (typeof name !== 'string') return { text: '?' };
  if (name.startsWith('mcp:'))
    return { key: 'perm.server_tools', args: { server: visible(name.slice(4)) } };
  const label = toolLabel(name);
  return label === name ? { text: visible(name) } : { key: label };
}

function labelled(cls, what) {
  const el = h('span', { class: cls });
  if (what.key) tx(el, what.key, what.args);
  else el.textContent = what.text;
  return el;
}

/** Why a rule is ignored (or, a deny, kept as written), in the page's language. */
function problemLine(problem) {
  const why = {
    key: `rules.problem.${problem.code}`,
    args: { tool: visible(problem.tool || ''), folder: visible(problem.folder || '') },
  };
  const line = h('p', { class: 'help warn perm-problem' });
  tx(line, problem.kept ? 'rules.kept' : 'rules.ignored', { why });
  return line;
}

export function permissionsSection({ load, onRules, onRevoke }) {
  let rules = [];
  const ruleList = h('ul', { class: 'perm-list', id: 'perm-rules', 'aria-live': 'polite' });
  const grantList = h('ul', { class: 'perm-list', id: 'perm-grants', 'aria-live': 'polite' });
  const more = h('p', { class: 'help', hidden: true });
  const error = h('div', { class: 'field-error', role: 'alert', hidden: true });
  const root = h(
    'div',
    { class: 'field perm-field' },
    h('p', { class: 'help', i18n: 'perm.help' }),
    h('h4', { i18n: 'perm.rules' }),
    ruleList,
    more,
    h('h4', { i18n: 'perm.grants' }),
    grantList,
    error,
  );

  function ruleItem(row) {
    const action = ACTIONS.includes(row.action) ? row.action : null;
    const remove = h('button', {
      class: 'btn small',
      type: 'button',
      i18n: 'perm.remove',
      dataset: { n: String(row.n) },
      onclick: (event) => {
        const next = rules.filter((_, i) => i !== row.n - 1);
        onRules(next, event);
      },
    });
    const folder =
      typeof row.folder === 'string'
        ? h('span', {
            class: 'perm-folder mono',
            text: visible(row.folder),
            title: visible(row.folder),
          })
        : h('span', { class: 'perm-folder', i18n: 'rules.anywhere' });
    const made =
      typeof row.created === 'number'
        ? h('span', { class: 'perm-when', text: ago(row.created) })
        : null;
    return h(
      'li',
      { class: `perm-item${row.in_force ? '' : ' off'}`, dataset: { action: action || 'bad' } },
      h(
        'div',
        { class: 'perm-line' },
        action
          ? h('span', { class: `perm-action ${action}`, i18n: `perm.action.${action}` })
          : h('span', { class: 'perm-action bad', text: visible(String(row.action)) }),
        labelled('perm-tool', toolText(row.tool)),
        folder,
        made,
        remove,
      ),
      row.problem ? problemLine(row.problem) : null,
    );
  }

  function grantItem(grant) {
    const remove = h('button', {
      class: 'btn small',
      type: 'button',
      i18n: 'perm.remove',
      onclick: () => onRevoke(grant.session_id, grant.tool).then(refresh, (err) => showError(err)),
    });
    const chat = h('span', { class: 'perm-folder' });
    tx(chat, 'perm.in_chat', { chat: visible(grant.title || grant.session_id) });
    return h(
      'li',
      { class: 'perm-item', dataset: { action: 'allow' } },
      h(
        'div',
        { class: 'perm-line' },
        h('span', { class: 'perm-action allow', i18n: 'perm.action.session' }),
        labelled('perm-tool', toolText(grant.tool)),
        chat,
        h('span', { class: 'perm-when', text: ago(grant.created) }),
        remove,
      ),
    );
  }

  function showError(err) {
    error.hidden = !err;
    error.textContent = err ? String(err.message || err) : '';
  }

  function render(view) {
    ruleList.replaceChildren(...(view.rules || []).map(ruleItem));
    if (!ruleList.children.length)
      ruleList.append(h('li', { class: 'perm-none', i18n: 'perm.no_rules' }));
    grantList.replaceChildren(...(view.grants || []).map(grantItem));
    if (!grantList.children.length)
      grantList.append(h('li', { class: 'perm-none', i18n: 'perm.no_grants' }));
    const hidden = (view.total || 0) - (view.rules || []).length;
    more.hidden = hidden <= 0;
    if (hidden > 0) tx(more, 'perm.more', { n: hidden });
  }

  let asked = 0;
  function refresh() {
    const mine = ++asked;
    showError(null);
    return load().then(
      (view) => {
        if (mine === asked) render(view);
      },
      (err) => showError(err),
    );
  }

  const set = (value) => {
    rules = Array.isArray(value) ? value : [];
    refresh();
  };
  return { root, set, refresh };
}
