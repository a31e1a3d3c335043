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
