// Card view of web_fetch: the page's title and address, how much of its text the model got, and
// that text. Everything here came from a web page: untrusted, textContent only (h()).
import { h } from '../lib/dom.js';

/** The result view for a web tool, or undefined for any other tool. */
export function webResultView(name, r, { plainBlock }) {
  if (name !== 'web_fetch' || typeof r.text !== 'string') return undefined;
  const shown = r.text.length;
  const total = r.total_chars ?? shown;
  return h(
    'div',
    { class: 'web-page' },
    r.title ? h('div', { class: 'web-title', text: r.title }) : null,
    h('div', { class: 'tc-meta web-url', text: r.url || '' }),
    h('div', {
      class: 'tc-meta web-chars',
      i18n: ['card.web_chars', { from: (r.start ?? 0) + 1, to: (r.start ?? 0) + shown, total }],
    }),
    plainBlock(r.text),
  );
}
