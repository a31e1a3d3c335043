// With Wrap on, a long code block's line groups off screen (codegroups.js) take the height of
// their wrapped lines, not of their unwrapped ones: each group gets --rows, the rows its lines
// wrap to at the block's width (chat.css), so the page's height, and the scrollbar, stay where
// they are when the groups are drawn. Counting is linear in the text and lays out nothing but a
// few probes; it is done again when the block's width changes while it is wrapped.

// Characters drawn wider than a column: CJK, Hangul and full-width forms (one UTF-16 unit each),
// astral characters such as emoji (a surrogate pair each), and bidi controls, which are drawn as
// their ⟨U+202E⟩ marker (bidimark.js). Their widths are measured in the block's own font.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;
const ASTRAL = /[\ud800-\udbff]/g;
const MARKED = /[\u202a-\u202e\u2066-\u2069]/g;
const TAB = 8;

const count = (line, re) => line.match(re)?.length || 0;

/** How many rows the lines of `text` take when wrapped at `room` pixels, for character widths
 * `w` ({ ch, wide, astral, mark } in pixels). */
export function wrappedRows(text, room, w) {
  let rows = 0;
  for (const line of text.split('\n')) {
    const wide = count(line, WIDE);
    const astral = count(line, ASTRAL);
    const marks = count(line, MARKED);
    const tabs = count(line, /\t/g);
    const narrow = line.length - wide - 2 * astral - marks + tabs * (TAB - 1);
    const width = narrow * w.ch + wide * w.wide + astral * w.astral + marks * w.mark;
    rows += Math.max(1, Math.ceil(width / room));
  }
  return rows;
}

// The block's room for a line, and its characters' widths, measured once in its own font.
function measure(pre) {
  const style = getComputedStyle(pre);
  const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const code = (pre.querySelector('code') || document.createElement('code')).cloneNode(false);
  const probe = (text, cls) => {
    const span = document.createElement('span');
    span.textContent = text;
    if (cls) {
      span.className = cls;
      span.dataset.cp = '202E';
    }
    code.append(span);
    return span;
  };
  const spans = [probe('0'.repeat(32)), probe('宽'.repeat(16)), probe('😀'.repeat(16)), probe('\u202e', 'bidi-mark')];
  pre.append(code);
  const [ch, wide, astral, mark] = spans.map((span) => span.getBoundingClientRect().width);
  code.remove();
  return { room, w: { ch: ch / 32, wide: wide / 16, astral: astral / 16, mark } };
}

function sizeGroups(pre) {
  const groups = pre.querySelectorAll(':scope > div');
  if (!groups.length) return;
  const { room, w } = measure(pre);
  if (!(room > 0 && w.ch > 0) || String(room) === pre.dataset.wrapRoom) return;
  pre.dataset.wrapRoom = String(room);
  for (const group of groups) group.style.setProperty('--rows', String(wrappedRows(group.textContent, room, w)));
}

const watched = new WeakSet();
const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (target.closest('.code-block')?.classList.contains('wrapped')) sizeGroups(target);
  }
});

/** Call after the block's Wrap changed: its groups get their wrapped rows (once per width). */
export function wrapChanged(pre) {
  if (!pre.querySelector(':scope > div')) return;
  sizeGroups(pre);
  if (!watched.has(pre)) {
    watched.add(pre);
    resized.observe(pre);
  }
}
