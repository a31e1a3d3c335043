// The approval card's lasting answers: "Always allow <tool> in <folder>" and "Never", each a
// rule Core keeps in the settings (tool_rules) and applies from the next call on. Kept apart
// from approval.js so the card's own buttons and keys stay as they are.
import { h } from '../lib/dom.js';
import { visible } from '../lib/format.js';
import { toolLabel, plainToolName } from './toolcard.js';

/** The tool as the card names it: its text (following a language switch) or its name. */
function toolArg(call) {
  const label = toolLabel(call.name);
  return label === call.name ? plainToolName(call) : { key: label };
}

/** Whether "Always allow" may be offered: never for a command outside the sandbox, and not
 * when the card asks for a reason a rule never covers (a spent budget, a target that makes
 * something run later, a blacklisted command: those would ask again all the same). */
export function canAlwaysAllow(call) {
  const p = call.preview || {};
  if (call.name === 'run_command' && p.sandboxed !== true) return false;
  return !(p.budget || p.persistence || p.blocked);
}

/** The row of the two rule buttons; ``pick(event, approve)`` answers the call with a rule.
 * Returns ``{ row, buttons }``: the buttons arm and disarm with the card's own. */
export function ruleButtons(call, pick) {
  const folder =
    typeof call.rule_folder === 'string' && call.rule_folder ? visible(call.rule_folder) : null;
  const args = folder ? { tool: toolArg(call), folder } : { tool: toolArg(call) };
  const make = (approve, key) => {
    const button = h('button', {
      class: 'btn quiet rule',
      type: 'button',
      disabled: true,
      dataset: { callId: call.call_id, decision: approve ? 'always' : 'never' },
      i18n: [folder ? `${key}_in` : key, args],
    });
    if (folder) button.title = folder;
    button.addEventListener('click', (event) => pick(event, approve));
    return button;
  };
  const buttons = [];
  if (call.can_rule !== false) {
    // no folder but the root: no lasting rule is offered
    if (canAlwaysAllow(call)) buttons.push(make(true, 'approval.always'));
    buttons.push(make(false, 'approval.never'));
  }
  return { row: h('div', { class: 'ap-rules' }, buttons), buttons };
}
