// Builds DOM without innerHTML: text always goes in through textContent, so nothing a model,
// a file or a tool says can become markup here. markdown.js is the one (sanitized) exception.
import { tx, tattr } from './i18n.js';
import { icon } from './icons.js';

/**
 * h('button', {class: 'btn', i18n: 'common.save', onclick: fn}, child, ...)
 * Props: class, text, i18n (key or [key, args]), title/aria-label/placeholder via i18nTitle,
 * i18nLabel, i18nPlaceholder; on<event> listeners; dataset; icon (name); others as attributes.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'i18n') tx(el, ...asArgs(value));
    else if (key === 'i18nTitle') tattr(el, 'title', ...asArgs(value));
    else if (key === 'i18nLabel') tattr(el, 'aria-label', ...asArgs(value));
    else if (key === 'i18nPlaceholder') tattr(el, 'placeholder', ...asArgs(value));
    else if (key === 'icon') el.append(icon(value));
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'value') el.value = value;
    else if (key === 'checked') el.checked = Boolean(value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function asArgs(value) {
  return Array.isArray(value) ? value : [value];
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Tell ancestors about a user action (components talk upward with bubbling events). */
export function emit(el, name, detail = {}) {
  el.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
}

/** Copy text; navigator.clipboard needs a secure context, so fall back to execCommand. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { class: 'sr-only', 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** A value as text with a break opportunity after each path separator, so a long path wraps
 * at a folder boundary instead of inside a name (copied, it is the same text). Only up to a
 * bound: a longer value wraps anywhere rather than becoming thousands of nodes. */
export function wrapsAtSeparators(text) {
  if (text.length > 2048) return [text];
  const parts = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '/' || text[i] === '\\') {
      parts.push(text.slice(start, i + 1), h('wbr'));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
