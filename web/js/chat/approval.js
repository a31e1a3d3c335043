// Pending tool calls waiting for the user, oldest first, shown one at a time in a panel docked
// above the composer. Approving needs a real user gesture (event.isTrusted) on a control bound
// to that one call id, and the buttons arm only after a moment, so a keystroke meant for the
// composer cannot approve a call that just appeared.
import { h, append, wrapsAtSeparators } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { t, tx } from '../lib/i18n.js';
import { bytes, duration, visible } from '../lib/format.js';
import { failureLine, previewView } from './results.js';
import { persistenceWarning } from './results_files.js';
import { toolLabel, keyArgs, valueClass, plainToolName } from './toolcard.js';
import { announceUrgent } from './announce.js';
import { ruleButtons } from './approval_rules.js';

const ARM_MS = 450;
// Answering from wherever the user types (the message box): chords no composer key uses.
// Ctrl+Enter sent the message before; while a call waits it approves instead.
const MAC = /Mac|iPhone|iPad/.test(navigator.platform || '');
const KEYS = MAC
  ? {
      approve: '⌘↩',
      deny: '⌘⇧⌫',
      approveSpoken: 'Command+Return',
      denySpoken: 'Command+Shift+Delete',
    }
  : {
      approve: 'Ctrl+Enter',
      deny: 'Ctrl+Shift+⌫',
      approveSpoken: 'Ctrl+Enter',
      denySpoken: 'Ctrl+Shift+Backspace',
    };

/** The key chord a button answers to, shown on it (the name is spoken from aria-keyshortcuts). */
function keyHint(text, spoken) {
  return h('kbd', { class: 'key-hint', 'aria-hidden': 'true', title: spoken, text });
}

/** Why this call asks although the mode or a grant would not: a damage budget, or its target
 * changed after the user approved it. */
function guardWarning(p) {
  const rows = [];
  if (p.changed_since_shown) rows.push(h('div', { i18n: 'approval.changed_since_shown' }));
  const b = p.budget;
  if (b && ['files_removed', 'bytes_written', 'commands'].includes(b.name)) {
    const size = b.name === 'bytes_written';
    const args = {
      used: size ? bytes(b.used) : b.used,
      limit: size ? bytes(b.limit) : b.limit,
      call: size ? bytes(b.call) : b.call,
    };
    rows.push(h('div', { i18n: [`approval.budget_${b.name}`, args] }));
  }
  if (!rows.length) return null;
  return h('div', { class: 'tc-error guard-warning', role: 'alert' }, icon('alert'), ' ', rows);
}

/** The facts the user decides on, as [label key, value, value is a key, class] rows: the
 * absolute targets from the preview (the model's path may be relative), and for a command
 * the command once, the folder it runs in (also when the model gave none) and its confinement. */
function facts(call, p) {
  const rows = [];
  if (call.name === 'run_command') {
    rows.push(['arg.command', p.command ?? call.arguments?.command ?? '']);
    rows.push(['arg.cwd', p.cwd ?? call.arguments?.cwd ?? '']);
    rows.push([
      'approval.sandbox',
      p.sandboxed ? 'card.sandboxed' : 'card.not_sandboxed',
      true,
      p.sandboxed ? 'v ok' : 'v warn',
    ]);
    if (p.timeout_ms) rows.push(['approval.time_limit', duration(p.timeout_ms)]);
    return rows;
  }
  const sizeChange = call.name === 'write_file' && p.exists && p.size_before != null;
  const absolute = { 'arg.path': p.path, 'arg.source': p.path, 'arg.destination': p.destination };
  for (const row of keyArgs(call.name, call.arguments)) {
    if (sizeChange && row[0] === 'arg.size') continue;
    if (absolute[row[0]]) row[1] = absolute[row[0]];
    rows.push(row);
  }
  if (call.name === 'write_file') {
    rows.push(['approval.effect', p.exists ? 'approval.overwrites' : 'approval.new_file', true]);
    if (sizeChange)
      rows.push(['approval.size_change', `${bytes(p.size_before)} → ${bytes(p.size_after)}`]);
  }
  if (call.name === 'delete_file' && p.size != null)
    rows.push(['approval.total_size', bytes(p.size)]);
  if (call.name === 'edit_file' && p.size_before != null)
    rows.push(['approval.size_change', `${bytes(p.size_before)} → ${bytes(p.size_after)}`]);
  if (p.deletes && call.name !== 'delete_file')
    rows.push(['approval.effect', 'approval.replaces_file', true]);
  return rows;
}

/** Why the blacklist refuses a command, in the page's language (its code), as an alert. */
function blockedLine(p) {
  const line = failureLine(p.blocked_code, p.blocked_params, p.blocked, 'tc-error');
  line.setAttribute('role', 'alert');
  return line;
}

export class ApprovalPanel {
  constructor(el, { onDecide, sessionTitle, onClosed = () => {} }) {
    this.el = el;
    this.onDecide = onDecide;
    this.onClosed = onClosed; // the panel closed while it held the focus: give it on
    this.sessionTitle = sessionTitle;
    this.head = null;
    this.timer = null;
    el.tabIndex = -1;
    el.addEventListener('keydown', (event) => this.onKey(event));
    // Capture: before the message box sees Ctrl+Enter as Enter.
    document.addEventListener('keydown', (event) => this.onShortcut(event), true);
    document.addEventListener('metona:language', () => this.head && this.setTitle(this.head));
  }

  /** "Allow “Run command”?" as one sentence per language (no stray space in Chinese). */
  setTitle(call) {
    const label = toolLabel(call.name);
    tx(this.title, 'approval.ask', { tool: label === call.name ? plainToolName(call) : t(label) });
  }

  /** Show the oldest pending call (or hide when none wait). */
  set(queue, currentId) {
    const head = queue[0] || null;
    this.count = queue.length;
    if (!head) {
      // Focus inside the panel would fall to the body with it: typing would then go nowhere.
      const hadFocus = this.el.contains(document.activeElement);
      this.head = null;
      this.el.hidden = true;
      this.el.replaceChildren();
      clearInterval(this.timer);
      if (hadFocus || document.activeElement === document.body) this.onClosed();
      return;
    }
    // The same call asked again (its target changed after approval) is a new round: new diff.
    const round = (call) => (call.preview && call.preview.approval_round) || 1;
    if (this.head && this.head.call_id === head.call_id && round(this.head) === round(head)) {
      tx(this.queueLabel, 'approval.queue', { i: 1, n: queue.length });
      this.queueLabel.hidden = queue.length < 2;
      this.showChat(currentId);
      return;
    }
    this.head = head;
    this.render(head, currentId);
  }

  render(call, currentId) {
    const p = call.preview || {};
    // A command that runs outside the sandbox can do anything the user can: its Approve is
    // not the primary button, says what it allows, and Enter on the panel does not press it.
    this.risky = call.name === 'run_command' && p.sandboxed !== true;
    // Not confined: no chord approves it (the button itself must be pressed), so none is shown.
    this.approve = h(
      'button',
      {
        class: this.risky ? 'btn risky' : 'btn primary',
        type: 'button',
        disabled: true,
        dataset: { callId: call.call_id, decision: 'approve' },
        'aria-keyshortcuts': this.risky ? null : 'Control+Enter Meta+Enter',
      },
      icon(this.risky ? 'alert' : 'check'),
      h('span', { i18n: this.risky ? 'approval.approve_unsandboxed' : 'approval.approve' }),
      this.risky ? null : keyHint(KEYS.approve, KEYS.approveSpoken),
    );
    this.deny = h(
      'button',
      {
        class: 'btn',
        type: 'button',
        disabled: true,
        dataset: { callId: call.call_id, decision: 'deny' },
        'aria-keyshortcuts': 'Control+Shift+Backspace Meta+Shift+Backspace',
      },
      icon('close'),
      h('span', { i18n: 'approval.deny' }),
      keyHint(KEYS.deny, KEYS.denySpoken),
    );
    this.approve.addEventListener('click', (e) => this.decide(e, true));
    this.deny.addEventListener('click', (e) => this.decide(e, false));
    const rules = ruleButtons(call, (e, approve) => this.decide(e, approve, true));
    this.ruleControls = rules.buttons;
    this.remember = call.can_remember
      ? h('input', { type: 'checkbox', id: 'approval-remember' })
      : null;
    this.queueLabel = h('span', {
      class: 'queue',
      i18n: ['approval.queue', { i: 1, n: this.count }],
      hidden: this.count < 2,
    });
    this.expiry = h('span', { class: 'expiry' });
    this.title = h('h2', { id: 'approval-title' });
    this.setTitle(call);
    const command = call.name === 'run_command';
    // Everything here is nodes or nothing: replaceChildren(null) would print "null".
    this.el.replaceChildren();
    append(this.el, [
      h('header', { class: 'ap-head' }, icon('alert'), this.title, this.queueLabel),
      h(
        'dl',
        { class: 'ap-facts', id: 'approval-facts' },
        facts(call, p).map(([key, value, isKey, cls]) =>
          h(
            'div',
            { class: 'kv' },
            h('dt', { class: 'k', i18n: key }),
            isKey
              ? h('dd', { class: cls || 'v', i18n: value })
              : h(
                  'dd',
                  { class: valueClass(key), title: visible(value) },
                  wrapsAtSeparators(visible(value)),
                ),
          ),
        ),
        (this.chatRow = h(
          'div',
          { class: 'kv' },
          h('dt', { class: 'k', i18n: 'approval.chat' }),
          h('dd', { class: 'v' }),
        )),
      ),
      persistenceWarning(p),
      guardWarning(p),
      command && p.blocked ? blockedLine(p) : null,
      command ? null : h('div', { class: 'ap-preview' }, previewView(p)),
      this.remember
        ? h(
            'label',
            { class: 'check remember' },
            this.remember,
            h('span', { i18n: 'approval.remember' }),
          )
        : null,
      rules.row,
      h('div', { class: 'ap-actions' }, this.expiry, this.deny, this.approve),
    ]);
    this.showChat(currentId);
    this.el.hidden = false;
    // Read out once, whether or not the panel takes the focus: what asks, and about what.
    const what = facts(call, p).find(([, , isKey]) => !isKey);
    const keys = this.risky
      ? t('approval.keys_deny', { deny: KEYS.denySpoken })
      : t('approval.keys', { approve: KEYS.approveSpoken, deny: KEYS.denySpoken });
    announceUrgent(
      `${this.title.textContent} ${what ? visible(what[1]) : ''} ${keys}`
        .replace(/\s+/g, ' ')
        .trim(),
    );
    this.el.classList.remove('arrived');
    void this.el.offsetWidth; // restart the arrival animation
    this.el.classList.add('arrived');
    this.armedAt = performance.now() + ARM_MS;
    setTimeout(() => {
      if (this.head !== call) return;
      this.approve.disabled = false;
      this.deny.disabled = false;
      for (const button of this.ruleControls) button.disabled = false;
    }, ARM_MS);
    this.tick();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), 1000);
    // Take focus only when the user is not typing somewhere.
    const active = document.activeElement;
    if (!active || !/^(TEXTAREA|INPUT|SELECT)$/.test(active.tagName))
      this.el.focus({ preventScroll: true });
  }

  /** Name the chat a call comes from when it is not the one on screen. */
  showChat(currentId) {
    const other = this.head.session_id !== currentId;
    this.chatRow.hidden = !other;
    if (other) {
      const title = this.sessionTitle(this.head.session_id);
      this.chatRow.lastChild.textContent = title;
      this.chatRow.lastChild.title = title;
    }
  }

  tick() {
    if (!this.head || !this.head.expires_at) return;
    const left = Math.max(0, Math.round(this.head.expires_at - Date.now() / 1000));
    const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    tx(this.expiry, 'approval.expires', { t: text });
  }

  decide(event, approve, rule = false) {
    // Only a real click or key press by the user, on the control of the call on screen.
    if (!event.isTrusted || !this.head) return;
    if (performance.now() < this.armedAt) return;
    const control = rule ? event.currentTarget : approve ? this.approve : this.deny;
    if (!control || control.dataset.callId !== this.head.call_id || control.disabled) return;
    this.approve.disabled = true;
    this.deny.disabled = true;
    for (const button of this.ruleControls) button.disabled = true;
    this.onDecide(
      this.head.call_id,
      approve,
      Boolean(this.remember && this.remember.checked),
      rule,
    );
  }

  onKey(event) {
    if (!this.head || event.repeat || event.isComposing) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.decide(event, false);
    } else if (
      event.key === 'Enter' &&
      event.target !== this.deny &&
      event.target.type !== 'checkbox'
    ) {
      if (this.risky && event.target !== this.approve) return; // only on the button itself
      event.preventDefault();
      this.decide(event, true);
    }
  }

  /** Ctrl+Enter approves, Ctrl+Shift+Backspace denies, wherever the focus is (but in a modal
   * panel that has made the approval inert). An unconfined command is never approved by a
   * chord: Ctrl+Enter takes the user to its button instead. */
  onShortcut(event) {
    if (!this.waiting() || event.repeat || event.isComposing || event.altKey) return;
    if (!(event.ctrlKey || event.metaKey) || this.el.closest('[inert]')) return;
    const approve = event.key === 'Enter' && !event.shiftKey;
    const deny = event.key === 'Backspace' && event.shiftKey;
    if (!approve && !deny) return;
    event.preventDefault();
    event.stopPropagation();
    if (approve && this.risky) this.approve.focus();
    else this.decide(event, approve);
  }

  /** The decision failed (answered elsewhere first, or an error): let the user try again. */
  release() {
    if (!this.head) return;
    this.approve.disabled = false;
    this.deny.disabled = false;
    for (const button of this.ruleControls) button.disabled = false;
  }

  /** A call waits for the user's answer on screen. */
  waiting() {
    return Boolean(this.head) && !this.el.hidden;
  }

  focus() {
    if (!this.el.hidden) this.el.focus();
  }
}
