// Model text -> DOM. The only path: marked (raw HTML shown as text) -> DOMPurify with a strict
// allow-list -> our own post-processing (code blocks, blocked images). Streaming is incremental:
// blocks the lexer has closed are rendered once and kept; only the growing tail is redrawn.
import { Marked } from '../vendor/marked.esm.js';
import DOMPurify from '../vendor/purify.es.mjs';
import hljs from '../vendor/highlight.min.js';
import { h, copyText } from './dom.js';
import { icon } from './icons.js';
import { t } from './i18n.js';

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;');

// Raw HTML in an answer is shown as the text it is, never as markup (the model is untrusted;
// DOMPurify below is the second wall). Task-list boxes become characters, not form controls.
const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    checkbox: ({ checked }) => (checked ? '☑ ' : '☐ '),
  },
});

const PURIFY = {
  ALLOWED_TAGS: ['a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5',
    'h6', 'hr', 'i', 'img', 'kbd', 'li', 'ol', 'p', 'pre', 's', 'strong', 'sub', 'sup', 'table',
    'tbody', 'td', 'th', 'thead', 'tr', 'ul'],
  ALLOWED_ATTR: ['href', 'title', 'alt', 'src', 'align', 'start', 'class', 'colspan', 'rowspan'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

const SAFE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,/i;

// Runs inside DOMPurify's inert document, before any node reaches the page: remote images lose
// their src here, so nothing is ever requested; classes are kept only for code languages.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class')) {
    const keep = node.tagName === 'CODE'
      && /^language-[\w+#.-]{1,32}$/.test(node.getAttribute('class'));
    if (!keep) node.removeAttribute('class');
  }
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src') || '';
    if (!SAFE_IMAGE.test(src)) node.removeAttribute('src');
  }
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') || '';
    if (!/^(?:https?:|mailto:)/i.test(href)) node.removeAttribute('href');
    else node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Sanitized fragment for a piece of Markdown. */
export function renderMarkdown(text) {
  const html = marked.parse(text, { async: false });
  return finish(DOMPurify.sanitize(html, PURIFY));
}

function renderTokens(tokens, links) {
  const list = Object.assign([...tokens], { links });
  return finish(DOMPurify.sanitize(marked.parser(list), PURIFY));
}

// Our own trusted touches on an already-sanitized fragment.
function finish(fragment) {
  for (const img of fragment.querySelectorAll('img:not([src])')) {
    const alt = img.getAttribute('alt');
    img.replaceWith(h('span', { class: 'blocked-img', title: t('md.image_blocked') },
      icon('image'), ' ', alt || t('md.image')));
  }
  for (const pre of fragment.querySelectorAll('pre')) wrapCode(pre);
  for (const table of fragment.querySelectorAll('table')) {
    table.replaceWith(h('div', { class: 'table-wrap' }, table.cloneNode(true)));
  }
  return fragment;
}

function wrapCode(pre) {
  const code = pre.querySelector('code');
  const match = code && /language-([\w+#.-]+)/.exec(code.className);
  const lang = match ? match[1] : '';
  const copy = h('button', {
    class: 'code-copy', type: 'button', i18nTitle: 'common.copy', i18nLabel: 'md.copy_code',
  }, icon('copy'));
  copy.addEventListener('click', async () => {
    if (await copyText(code ? code.textContent : pre.textContent)) flash(copy);
  });
  const head = h('div', { class: 'code-head' }, h('span', { class: 'code-lang', text: lang }), copy);
  const box = h('div', { class: 'code-block' });
  pre.replaceWith(box);
  box.append(head, pre);
}

function flash(button) {
  button.classList.add('done');
  setTimeout(() => button.classList.remove('done'), 1200);
}

/** Highlight closed code blocks (hljs escapes the text it highlights). */
function highlight(root) {
  for (const code of root.querySelectorAll('pre code[class*="language-"]:not(.hljs)')) {
    const lang = /language-([\w+#.-]+)/.exec(code.className)?.[1];
    if (lang && hljs.getLanguage(lang)) {
      hljs.highlightElement(code);
    }
  }
}

/**
 * Incremental renderer for one streaming text. setText(full) may be called once per frame with
 * the whole text so far; blocks that the lexer closed (any block followed by another non-blank
 * block) are appended once, and only the last block is re-rendered.
 */
export class MarkdownStream {
  constructor(container) {
    this.el = container;
    this.text = '';
    this.stableEnd = 0; // characters already committed as finished blocks
    this.links = {};
    this.tail = null;
  }

  setText(text, { final = false } = {}) {
    text = text.replace(/\r\n?/g, '\n');
    if (!text.startsWith(this.text)) this.reset();
    if (text === this.text && !final) return;
    this.text = text;
    const tokens = marked.lexer(text.slice(this.stableEnd));
    Object.assign(this.links, tokens.links || {});
    let last = tokens.length - 1;
    while (last > 0 && tokens[last].type === 'space') last -= 1;
    const commitUpTo = final ? tokens.length : Math.max(last, 0);
    for (let i = 0; i < commitUpTo; i += 1) {
      const token = tokens[i];
      this.stableEnd += token.raw.length;
      if (token.type === 'space' || token.type === 'def') continue;
      const block = h('div', { class: 'md-block' });
      block.append(renderTokens([token], this.links));
      highlight(block);
      this.el.insertBefore(block, this.tail);
    }
    const rest = tokens.slice(commitUpTo);
    if (!rest.length) {
      this.tail?.remove();
      this.tail = null;
      return;
    }
    if (!this.tail) {
      this.tail = h('div', { class: 'md-block md-tail' });
      this.el.append(this.tail);
    }
    this.tail.replaceChildren(renderTokens(rest, this.links));
  }

  finish() {
    this.setText(this.text, { final: true });
  }

  reset() {
    this.el.replaceChildren();
    this.text = '';
    this.stableEnd = 0;
    this.links = {};
    this.tail = null;
  }
}
