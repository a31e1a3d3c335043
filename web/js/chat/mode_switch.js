// The mode at a glance: one switch in the popup's header (Chat only, Read only, Ask, Auto),
// always showing the mode in force. It sets tools_enabled and confirmation_mode together; a turn
// already running keeps the mode it started in (Core reads it once per turn). A step up (more
// power) takes the user's own pick; Auto also names its risk and waits for a second click, as
// Settings does.
import { h } from '../lib/dom.js';
import { riskBox, CONFIRM } from '../settings/settings_guard.js';
import { selectBox } from '../lib/controls.js';

const ARM_MS = 450;
export const MODES = ['chat', 'read', 'ask', 'auto'];
const RANK = { chat: 0, read: 1, ask: 2, auto: 3 };

/** The settings' mode: "Ask" also stands for "overwrites and deletes only". */
export function modeOf(settings) {
  if (!settings) return 'ask';
  if (settings.tools_enabled === false) return 'chat';
  return { read_only: 'read', full_auto: 'auto' }[settings.confirmation_mode] || 'ask';
}

/** The settings change that puts the app in ``mode`` (keeping "overwrites and deletes only"
 * when the user chose it in Settings and now picks Ask). */
export function modePatch(mode, settings) {
  if (mode === 'chat') return { tools_enabled: false };
  const ask = settings?.confirmation_mode === 'delete_only' ? 'delete_only' : 'all_writes';
  const confirmation = { read: 'read_only', ask, auto: 'full_auto' }[mode];
  return { tools_enabled: true, confirmation_mode: confirmation };
}

export class ModeSwitch {
  constructor(bar, { save }) {
    this.save = save;
    this.settings = null;
    const label = h('span', { id: 'mode-switch-label', class: 'sr-only', i18n: 'mode.title' });
    // The page's own select (the engine's native one ignores the theme): a button naming the mode.
    this.box = selectBox({
      id: 'mode-switch',
      labelId: 'mode-switch-label',
      onChange: (mode, event) => this.picked(mode, event),
    });
    this.button = this.box.root.querySelector('.select-btn');
    this.root = h('div', { class: 'mode-switch' }, label, this.box.root);
    this.confirmBox = h('div', { class: 'mode-confirm', id: 'mode-confirm', hidden: true });
    bar.insertBefore(this.root, bar.querySelector('#state-badge'));
    bar.after(this.confirmBox);
    this.armedAt = performance.now() + ARM_MS;
  }

  /** Show the mode in force (settings from Core: saved here or changed elsewhere). */
  set(settings) {
    this.settings = settings;
    const mode = modeOf(settings);
    this.box.set(
      mode,
      MODES.map((value) => ({ value, key: `mode.${value}` })),
    );
    this.root.dataset.mode = mode;
    this.button.dataset.mode = mode;
  }

  picked(mode, event) {
    const current = modeOf(this.settings);
    if (mode === current) return;
    const up = RANK[mode] > RANK[current];
    if (up && (!event?.isTrusted || event.timeStamp < this.armedAt)) {
      this.set(this.settings); // not the user's own pick: nothing widens
      return;
    }
    if (mode === 'auto') {
      this.confirmAuto();
      return;
    }
    this.apply(mode);
  }

  confirmAuto() {
    const done = () => {
      this.confirmBox.hidden = true;
      this.confirmBox.replaceChildren();
    };
    const box = riskBox(CONFIRM.confirmation_mode, {
      armMs: ARM_MS,
      onConfirm: (event) => {
        if (!event.isTrusted) return;
        done();
        this.apply('auto');
      },
      onCancel: () => {
        done();
        this.set(this.settings);
        this.button.focus();
      },
    });
    this.confirmBox.replaceChildren(box);
    this.confirmBox.hidden = false;
  }

  /** Save the mode (the switch keeps the focus: disabling it would drop it to the page). */
  async apply(mode) {
    const result = await this.save(modePatch(mode, this.settings));
    this.set(result?.settings || this.settings);
  }
}
