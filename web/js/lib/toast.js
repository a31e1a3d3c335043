// Short messages at the top of the popup (errors from commands, "undone", ...).
import { h } from './dom.js';
import { icon } from './icons.js';

let host = null;

export function initToasts(el) {
  host = el;
}

/** toast({key, args}) for our own strings, toast({text}) for a message from the app. */
export function toast({ key, args, text, level = 'info', ms = 4000 }) {
  if (!host) return;
  const body = key ? h('span', { i18n: [key, args] }) : h('span', { text });
  const el = h(
    'div',
    { class: `toast ${level}`, role: level === 'error' ? 'alert' : 'status' },
    icon(level === 'info' ? 'check' : 'alert'),
    body,
    h(
      'button',
      {
        class: 'icon-btn small',
        type: 'button',
        i18nLabel: 'common.close',
        onclick: () => el.remove(),
      },
      icon('close'),
    ),
  );
  host.append(el);
  while (host.childElementCount > 3) host.firstElementChild.remove();
  setTimeout(() => el.remove(), ms);
}
