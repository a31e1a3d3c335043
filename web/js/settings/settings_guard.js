// Settings that widen what the agent may do. The page sends them only from a real user gesture
// (an isTrusted event on the control, once the panel is armed), and the two that remove a
// safeguard outright, full auto and the sandbox off, first say what the risk is and wait for a
// second click. Core validates every change again; this stops a script on the page (or a
// keystroke meant for something else) from quietly making the agent more powerful.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { rulesWiden } from './settings_permissions.js';

const added = (next, old) => (next || []).some((item) => !(old || []).includes(item));
// How much a confirmation mode lets through without asking: a step up widens.
const CONFIRM_RANK = { read_only: 0, all_writes: 1, delete_only: 2, full_auto: 3 };
const looser = (next, old) => (CONFIRM_RANK[next] ?? 3) > (CONFIRM_RANK[old] ?? 1);

const stable = (value) =>
  JSON.stringify(value, (k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((key) => [key, v[key]]),
        )
      : v,
  );

/**
 * Whether a new mcp_servers value gives the assistant more power: a server added or switched
 * on, what a server runs or where it connects changed, read-only tools trusted, a tool
 * switched back on. Switching off, removing, asking more: never.
 */
function mcpWidens(next, old) {
  for (const [name, entry] of Object.entries(next || {})) {
    if (!entry || entry.enabled === false) continue;
    const before = (old || {})[name];
    if (!before || before.enabled === false) return true;
    if (entry.trust === 'trust_read_only' && before.trust !== 'trust_read_only') return true;
    const offBefore = before.disabled_tools || [];
    if (offBefore.some((tool) => !(entry.disabled_tools || []).includes(tool))) return true;
    const strip = ({ enabled, trust, disabled_tools, timeout_s, ping_s, ...rest }) => rest;
    if (stable(strip(entry)) !== stable(strip(before))) return true;
  }
  return false;
}

const WIDENS = {
  allowed_dirs: (v, old) => added(v, old.allowed_dirs),
  blocked_dirs: (v, old) => added(old.blocked_dirs, v), // a folder taken off the blocked list
  web_allowed_hosts: (v, old) => added(v, old.web_allowed_hosts), // a local host opened to fetches
  disabled_tools: (v, old) => added(old.disabled_tools, v), // a tool switched back on
  tools_enabled: (v) => v === true,
  run_command_enabled: (v) => v === true,
  sandbox_enabled: (v) => v === false,
  confirmation_mode: (v, old) => v === 'full_auto' || looser(v, old.confirmation_mode),
  allow_writes_without_undo: (v) => v === true,
  budget_files_removed: (v, old) => v > old.budget_files_removed, // a larger damage budget
  budget_written_mb: (v, old) => v > old.budget_written_mb,
  budget_commands: (v, old) => v > old.budget_commands,
  mcp_servers: (v, old) => mcpWidens(v, old.mcp_servers), // a server added or on, trust relaxed
  tool_rules: (v, old) => rulesWiden(v, old.tool_rules), // a deny or ask removed, an allow added
};

export function widens(name, value, settings) {
  const test = WIDENS[name];
  return Boolean(test && test(value, settings || {}));
}

// The change -> [what the risk is, the confirm button's words].
export const CONFIRM = {
  confirmation_mode: ['set.confirm_full_auto', 'set.confirm_full_auto_do'],
  sandbox_enabled: ['set.confirm_sandbox_off', 'set.confirm_sandbox_off_do'],
};
// The values that remove a safeguard outright; other widening steps need only the user's gesture.
const RISKY = {
  confirmation_mode: (v) => v === 'full_auto',
  sandbox_enabled: (v) => v === false,
};

/** Whether this change names its risk and waits for a second click. */
export function namesRisk(name, value) {
  return Boolean(RISKY[name]?.(value));
}

/** An inline confirmation; its confirm button arms after a moment, Cancel has the focus. */
export function riskBox([textKey, doKey], { armMs, onConfirm, onCancel }) {
  const textId = `risk-${textKey.replace(/\W/g, '-')}`;
  const confirm = h('button', {
    class: 'btn small danger',
    type: 'button',
    disabled: true,
    i18n: doKey,
    onclick: onConfirm,
  });
  const cancel = h('button', {
    class: 'btn small',
    type: 'button',
    i18n: 'common.cancel',
    onclick: onCancel,
  });
  const box = h(
    'div',
    {
      class: 'risk',
      role: 'alertdialog',
      'aria-describedby': textId,
      'aria-label': confirm.textContent,
    },
    h('p', { class: 'risk-text', id: textId }, icon('alert'), h('span', { i18n: textKey })),
    h('div', { class: 'risk-actions' }, cancel, confirm),
  );
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  });
  setTimeout(() => {
    confirm.disabled = false;
  }, armMs);
  requestAnimationFrame(() => cancel.focus());
  return box;
}
