// Model text -> DOM. The only path: marked (raw HTML shown as text) -> DOMPurify with a strict
// allow-list -> our own post-processing (code blocks, blocked images, scrolling tables).
// mdstream.js renders a growing text incrementally with these same functions.
import { Marked } from '../../vendor/marked.esm.js';
import DOMPurify from '../../vendor/purify.es.mjs';
import hljs from '../../vendor/highlight.min.js';
import { h, copyText } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { codeText, groupCode } from './codegroups.js';
import { markBidi } from './bidimark.js';
import { wrapChanged } from './codewrap.js';
import { highlightGroups, OFF_THREAD_MIN } from './hloffthread.js';

const escapeHtml = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

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

// DOMPurify applies ALLOWED_URI_REGEXP to every attribute it does not know to be URI-safe, so
// without ADD_URI_SAFE_ATTR it strips `start` (numbered lists restarting at 1) and `align`.
const PURIFY = {
  ALLOWED_TAGS: [
    'a',
    'b',
    'blockquote',
    'br',
    'code',
    'del',
    'em',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'i',
    'img',
    'kbd',
    'li',
    'ol',
    'p',
    'pre',
    's',
    'strong',
    'sub',
    'sup',
    'table',
    'tbody',
    'td',
    'th',
    'thead',
    'tr',
    'ul',
  ],
  ALLOWED_ATTR: ['href', 'title', 'alt', 'src', 'align', 'start', 'class', 'colspan', 'rowspan'],
  ADD_URI_SAFE_ATTR: ['align', 'start', 'colspan', 'rowspan'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};
// A whole finished message in one pass: the same, plus our own block wrappers (raw HTML from the
// model is escaped by the renderer above, so only renderBlocks can produce these divs).
const PURIFY_BLOCKS = { ...PURIFY, ALLOWED_TAGS: [...PURIFY.ALLOWED_TAGS, 'div'] };

const SAFE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,/i;
const LANG_CLASS = /^language-[\w+#.-]{1,32}$/;

// Runs inside DOMPurify's inert document, before any node reaches the page: remote images lose
// their src here, so nothing is ever requested; classes are kept only for code languages.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.hasAttribute('class')) {
    const cls = node.getAttribute('class');
    const keep =
      (node.tagName === 'CODE' && LANG_CLASS.test(cls)) ||
      (node.tagName === 'DIV' && cls === 'md-block');
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

/**
 * Block tokens for a piece of Markdown. `links` seeds the reference definitions found earlier
 * in the same text (a suffix lexed alone would not resolve them).
 */
export function lex(src, links = null) {
  const lexer = new marked.Lexer(marked.defaults);
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(src);
}

/** Sanitized fragment for a piece of Markdown. */
export function renderMarkdown(text) {
  const html = marked.parse(text, { async: false });
  return markBidi(touch(DOMPurify.sanitize(html, PURIFY)));
}

/**
 * Sanitized fragment for already lexed tokens; `final` highlights code (a growing tail is not
 * highlighted every frame: it is redrawn, and highlighted once it is committed).
 */
export function renderTokens(tokens, { final = true } = {}) {
  const fragment = touch(DOMPurify.sanitize(marked.parser(tokens), PURIFY));
  if (final) highlight(fragment);
  return markBidi(fragment); // after highlighting, which redraws a code block from its text
}

/** One `div.md-block` per token, all through a single sanitiser pass (a finished message). */
export function renderBlocks(tokens) {
  const html = tokens
    .map((token) => `<div class="md-block">${marked.parser([token])}</div>`)
    .join('');
  const fragment = touch(DOMPurify.sanitize(html, PURIFY_BLOCKS));
  highlight(fragment);
  return markBidi(fragment);
}

// Our own trusted touches on an already-sanitized fragment.
function touch(fragment) {
  for (const img of fragment.querySelectorAll('img:not([src])')) {
    const alt = img.getAttribute('alt');
    img.replaceWith(
      h(
        'span',
        { class: 'blocked-img', title: t('md.image_blocked') },
        icon('image'),
        ' ',
        alt || t('md.image'),
      ),
    );
  }
  for (const pre of fragment.querySelectorAll('pre')) wrapCode(pre);
  for (const table of fragment.querySelectorAll('table')) {
    const wrap = h('div', { class: 'table-wrap' });
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}

function wrapCode(pre) {
  const code = pre.querySelector('code');
  const match = code && /language-([\w+#.-]+)/.exec(code.className);
  const lang = match ? match[1] : '';
  // A long block is drawn in groups of lines: only those in view are laid out.
  const text = code?.textContent || '';
  if (text.length >= OFF_THREAD_MIN) groupCode(pre, code, text);
  const copy = h(
    'button',
    {
      class: 'code-copy',
      type: 'button',
      i18nTitle: 'common.copy',
      i18nLabel: 'md.copy_code',
    },
    icon('copy'),
  );
  copy.addEventListener('click', async () => {
    if (await copyText(codeText(pre))) flash(copy);
  });
  // Long lines scroll sideways by default; the toggle wraps them instead.
  const wrap = h(
    'button',
    {
      class: 'code-btn code-wrap',
      type: 'button',
      'aria-pressed': 'false',
      i18nTitle: 'md.wrap',
      i18nLabel: 'md.wrap',
    },
    icon('wrap'),
  );
  const box = h('div', { class: 'code-block' });
  wrap.addEventListener('click', () => {
    wrap.setAttribute('aria-pressed', String(box.classList.toggle('wrapped')));
    wrapChanged(pre); // a long block's groups off screen take their wrapped height
  });
  const head = h(
    'div',
    { class: 'code-head' },
    h('span', { class: 'code-lang', text: lang }),
    h('span', { class: 'code-tools' }, wrap, copy),
  );
  pre.replaceWith(box);
  box.append(head, pre);
}

function flash(button) {
  button.classList.add('done');
  setTimeout(() => button.classList.remove('done'), 1200);
}

// highlight.js takes one task for a whole block even in its worker (hloffthread.js): a longer
// block stays plain (in a streamed answer and a one-pass render alike).
const HIGHLIGHT_LIMIT = 50_000;

/** Highlight code blocks: a long one off the main thread (hljs escapes the text it highlights). */
export function highlight(root) {
  for (const pre of root.querySelectorAll('pre')) {
    const code = pre.querySelector('code[class*="language-"]:not(.hljs)');
    const lang = code && /language-([\w+#.-]+)/.exec(code.className)?.[1];
    if (!lang || !hljs.getLanguage(lang)) continue;
    const text = codeText(pre);
    if (text.length < OFF_THREAD_MIN) hljs.highlightElement(code);
    else if (text.length <= HIGHLIGHT_LIMIT) highlightGroups(pre, lang, text);
  }
}
