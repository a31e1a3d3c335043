// The first CJK, emoji or right-to-left character the page lays out in a given font makes the
// engine search the system for a fallback font that has it: 20-70 ms once per font and script,
// paid in the first frames of the first answer that uses them (a long task while it streams).
// Hidden samples of each kind of text are laid out while the page is idle, one per idle
// period, so the fonts are found before anyone is waiting; the engine keeps what it found.
import { h } from './dom.js';

const TEXT = '中文汉字 漢字 かなカナ 한국어 😀👩‍👩‍👧‍👦🧑🏽‍💻 עברית العربية \u202eevil\u202c';

// The kinds of text an answer shows: body text, bold and italic, a heading, code in a line,
// a code block.
export const FONT_SAMPLES = [
  () => h('p', { text: TEXT }),
  () => h('p', {}, h('strong', { text: TEXT }), ' ', h('em', { text: TEXT })),
  () => h('h3', { text: TEXT }),
  () => h('p', {}, h('code', { text: TEXT })),
  () => h('div', { class: 'code-block' }, h('pre', {}, h('code', { text: TEXT }))),
];

/** Lays out one sample, hidden from sight and from screen readers, then takes it away. */
export function layOutSample(make) {
  const box = h('div', { class: 'md font-warm', 'aria-hidden': 'true' }, make());
  document.body.append(box);
  box.getBoundingClientRect();
  box.remove();
}
