// A link in a message may say one thing and lead elsewhere ("docs" -> a look-alike host). Before
// it goes to the system browser the user sees its real target: the scheme and host as the URL
// parser reads them (an international host in its punycode form, so a look-alike shows), the
// rest of the address with invisible characters made visible, and Open / Cancel.
import { h } from '../lib/dom.js';
import { visible } from '../lib/format.js';

let current = null;

export function checkLink(url, { host, onOpen, onClosed = null }) {
  current?.close();
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return; // not a link the bridge would open anyway
  }
  const origin = parsed.protocol === 'mailto:' ? 'mailto:' : `${parsed.protocol}//${parsed.host}`;
  let rest = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  try {
    rest = decodeURI(rest); // readable (CJK paths); what could hide is made visible below
  } catch {
    /* a malformed escape: show it encoded */
  }
  const previous = document.activeElement;
  const open = h(
    'button',
    { class: 'btn small primary', type: 'button', icon: 'external' },
    h('span', { i18n: 'link.open' }),
  );
  const cancel = h('button', { class: 'btn small', type: 'button', i18n: 'common.cancel' });
  const box = h(
    'div',
    {
      class: 'link-check',
      role: 'dialog',
      'aria-labelledby': 'link-check-title',
      'aria-describedby': 'link-check-url',
    },
    h('p', { class: 'lc-title', id: 'link-check-title', i18n: 'link.title' }),
    h(
      'p',
      { class: 'lc-url', id: 'link-check-url', dir: 'ltr' },
      h('strong', {
        class: 'lc-origin',
        text: parsed.protocol === 'mailto:' ? visible(url) : origin,
      }),
      parsed.protocol === 'mailto:' ? null : h('span', { text: visible(rest) }),
    ),
    h('div', { class: 'lc-actions' }, cancel, open),
  );
  const close = () => {
    box.remove();
    if (current === api) current = null;
    if (onClosed) onClosed();
    else if (previous && previous.isConnected) previous.focus({ preventScroll: true });
  };
  const api = { close };
  open.addEventListener('click', () => {
    close();
    onOpen(url);
  });
  cancel.addEventListener('click', close);
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  });
  current = api;
  host.append(box);
  open.focus();
  return api;
}

/** Every other way a link in the log could leave the popup: the middle button (auxclick opens a
 * new window in some engines, mousedown starts autoscroll), the context menu's "open link", and
 * dragging the link out (it would carry its real target to a browser, unseen). Each goes through
 * the same check as a click, or is refused. */
export function guardLinks(container) {
  const linkOf = (event) => {
    const link = event.target instanceof Element ? event.target.closest('a') : null;
    return link && container.contains(link) ? link : null;
  };
  container.addEventListener('auxclick', (event) => {
    const link = linkOf(event);
    if (!link) return;
    event.preventDefault();
    const href = link.getAttribute('href');
    if (event.button === 1 && href)
      container.dispatchEvent(
        new CustomEvent('metona:open-link', { bubbles: true, detail: { url: href } }),
      );
  });
  container.addEventListener('mousedown', (event) => {
    if (event.button === 1 && linkOf(event)) event.preventDefault();
  });
  container.addEventListener('contextmenu', (event) => {
    if (linkOf(event)) event.preventDefault();
  });
  container.addEventListener('dragstart', (event) => {
    if (linkOf(event)) event.preventDefault();
  });
}
