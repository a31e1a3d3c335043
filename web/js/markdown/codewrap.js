// With Wrap on, a long code block's line groups off screen (codegroups.js) take the height of
// their wrapped lines, not of their unwrapped ones: each group gets --rows, the rows its lines
// wrap to at the block's width (chat.css), so the page's height, and the scrollbar, stay where
// they are when the groups are drawn. Counting is linear in the text and lays out nothing but a
// few probes; it is done again when the block's width changes while it is wrapped.

// Characters drawn wider than a column: CJK, Hangul and full-width forms (one UTF-16 unit each),
// astral characters such as emoji (a surrogate pair each), and bidi controls, which are drawn as
// their ⟨U+202E⟩ marker (bidimark.js). Their widths are measured in the block's own font; a line
// may break before and after each of them, as between words.
const WIDE =
  '\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6';
const MARKS = '\u202a-\u202e\u2066-\u2069';
// One piece of a line: a run of spaces, a tab, a wide character, an astral one, a marker, or a
// word of narrow characters (a lone surrogate counts as one narrow character).
const PIECE = new RegExp(
  `( +)|(\t)|([${WIDE}])|([\ud800-\udbff][\udc00-\udfff])|([${MARKS}])|([^ \t${WIDE}${MARKS}\ud800-\udfff]+|[\\s\\S])`,
  'g',
);
const TAB = 8;

/** How many rows the lines of `text` take when wrapped at `room` pixels, for character widths
 * `w` ({ ch, wide, astral, mark } in pixels): a greedy fill as pre-wrap with overflow-wrap
 * anywhere lays them out (spaces hang at a row's end, a word longer than a row is cut). Linear
 * in the text. */
export function wrappedRows(text, room, w) {
  const perRow = Math.max(1, Math.floor(room / w.ch));
  let rows = 0;
  for (const line of text.split('\n')) {
    let x = 0;
    rows += 1;
    for (const [, spaces, tab, wide, astral, mark, word] of line.matchAll(PIECE)) {
      if (spaces) {
        x += spaces.length * w.ch; // hangs past the edge; the next piece starts a row
        continue;
      }
      if (tab) {
        x = (Math.floor(x / (TAB * w.ch)) + 1) * TAB * w.ch;
        continue;
      }
      const width = wide ? w.wide : astral ? w.astral : mark ? w.mark : word.length * w.ch;
      if (x + width <= room) {
        x += width;
        continue;
      }
      if (x > 0) {
        rows += 1;
        x = 0;
      }
      if (word && width > room) {
        rows += Math.ceil(word.length / perRow) - 1;
        x = (word.length % perRow || perRow) * w.ch;
      } else x = width;
    }
  }
  return rows;
}

// The block's room for a line, and its characters' widths, measured once in its own font.
function measure(pre) {
  const style = getComputedStyle(pre);
  const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const code = (pre.querySelector('code') || document.createElement('code')).cloneNode(false);
  // On one row whatever the block's Wrap: a probe cut across rows would measure its box.
  code.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;width:max-content';
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
  const spans = [
    probe('0'.repeat(32)),
    probe('宽'.repeat(16)),
    probe('😀'.repeat(16)),
    probe('\u202e', 'bidi-mark'),
  ];
  pre.append(code);
  const [ch, wide, astral, mark] = spans.map((span) => span.getBoundingClientRect().width);
  code.remove();
  return { room, w: { ch: ch / 32, wide: wide / 16, astral: astral / 16, mark } };
}

// The engine remembers the height a group last had on screen and gives it to the group off
// screen instead of its --lines or --rows (content-visibility: auto implies
// contain-intrinsic-size: auto), so once Wrap or the width changed, that height is stale. The
// groups off screen are put in fresh <div>s (the same <code> moved over), which remember none;
// those on screen are drawn again anyway, and stay, so the view does not move.
function forgetHeights(pre) {
  const groups = [...pre.querySelectorAll(':scope > div')].slice(0, -1); // the last is always drawn
  const off = groups.filter((group) => {
    const box = group.getBoundingClientRect();
    return box.bottom < 0 || box.top > innerHeight;
  });
  for (const group of off) {
    const fresh = document.createElement('div');
    fresh.style.cssText = group.style.cssText;
    fresh.append(...group.childNodes);
    group.replaceWith(fresh);
  }
}

// Wrapped: each group gets the rows its lines take at the block's width, counted once per
// width. Says whether they were counted again.
function sizeGroups(pre) {
  const groups = pre.querySelectorAll(':scope > div');
  const { room, w } = measure(pre);
  if (!(room > 0 && w.ch > 0) || String(room) === pre.dataset.wrapRoom) return false;
  pre.dataset.wrapRoom = String(room);
  for (const group of groups)
    group.style.setProperty('--rows', String(wrappedRows(group.textContent, room, w)));
  return true;
}

const isWrapped = (pre) => Boolean(pre.closest('.code-block')?.classList.contains('wrapped'));

const watched = new WeakSet();
const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (isWrapped(target) && sizeGroups(target)) forgetHeights(target);
  }
});

/** Call after the block's Wrap changed: off screen, its groups take the height of their lines
 * as they are now drawn. */
export function wrapChanged(pre) {
  if (!pre.querySelector(':scope > div')) return;
  if (isWrapped(pre)) sizeGroups(pre);
  forgetHeights(pre);
  if (!watched.has(pre)) {
    watched.add(pre);
    resized.observe(pre);
  }
}
