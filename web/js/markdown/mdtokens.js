// Helpers on marked's block tokens for the incremental renderer (mdstream.js).

const MARKER = /^ {0,3}(?:([*+-])|\d{1,9}([.)]))/;

/** The marker character of a list (`-`, `*`, `+`, `.` or `)`): another one starts a new list. */
export function markerOf(list) {
  const m = MARKER.exec(list.items[0]?.raw || '');
  return m ? m[1] || m[2] : '';
}

// A tight item drawn again in a list that turned loose, as marked's tokenizer would have made it.
export function loosen(item) {
  if (item.loose) return;
  item.loose = true;
  for (const token of item.tokens) if (token.type === 'text') token.type = 'paragraph';
  const box = item.tokens[0];
  if (box?.type !== 'checkbox') return;
  const para = item.tokens[1];
  item.tokens.shift();
  if (para?.type === 'paragraph' && para.tokens) {
    para.raw = box.raw + para.raw;
    para.text = box.raw + para.text;
    para.tokens.unshift(box);
  } else {
    item.tokens.unshift({ type: 'paragraph', raw: box.raw, text: box.raw, tokens: [box] });
  }
}

// Reference definitions inside a committed block (a blockquote or list can hold them).
export function nestedDefs(token, out = []) {
  for (const child of [...(token.tokens || []), ...(token.items || [])]) {
    if (child.type === 'def') out.push(child);
    else nestedDefs(child, out);
  }
  return out;
}

export const notSpace = (token) => token.type !== 'space';

/** The number of line ends in `s`. */
export function lineCount(s) {
  let n = 0;
  for (let at = s.indexOf('\n'); at >= 0; at = s.indexOf('\n', at + 1)) n += 1;
  return n;
}

/** Where the line after `lines` line ends starts in `src`, or -1. */
export function lineStart(src, lines) {
  let at = 0;
  for (let n = 0; n < lines; n += 1) {
    const nl = src.indexOf('\n', at);
    if (nl < 0) return -1;
    at = nl + 1;
  }
  return at;
}

/** Whether two lists of block tokens are the same blocks (spaces and trailing blanks aside):
 * a cut is kept only when the text before it lexes alone to what was committed. */
export function sameBlocks(tokens, done) {
  const a = tokens.filter(notSpace);
  const b = done.filter(notSpace);
  return (
    a.length === b.length &&
    a.every((kid, k) => kid.type === b[k].type && kid.raw.trimEnd() === b[k].raw.trimEnd())
  );
}

// How many children of a growing quote or list item are final: those before the second-to-last
// solid child, up to the blank line that ends the last of them (a cut mid-paragraph is no cut).
export function finishedChildren(kids) {
  let solid = 0;
  for (let k = kids.length - 1; k > 0; k -= 1) {
    if (notSpace(kids[k]) && ++solid === 2) {
      let end = k - 1;
      while (end >= 0 && kids[end].type !== 'space') end -= 1;
      return end >= 0 && kids[end].raw.endsWith('\n\n') ? end + 1 : 0;
    }
  }
  return 0;
}
