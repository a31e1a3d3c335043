// Bidi overrides, embeddings and isolates (U+202A-202E, U+2066-2069) in an answer or its
// thinking can make one name look like another ("report‮gpj.exe" drawn as "reportexe.jpg"). Each
// such character in the drawn Markdown is put in its own isolating span that shows it as a
// visible ⟨U+202E⟩ (CSS ::before) and ends its effect at the span's end, so it reorders nothing
// around it. The character itself stays in the text: Copy (and a selection) gives the original,
// as the message's Copy does everywhere else. Marks (LRM, RLM, ALM) are left alone: right-to-left
// prose uses them, and they cannot reverse a run of text.

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
const BIDI_ALL = /[\u202a-\u202e\u2066-\u2069]/g;

function mark(char) {
  const span = document.createElement('span');
  span.className = 'bidi-mark';
  span.dataset.cp = char.codePointAt(0).toString(16).toUpperCase();
  span.textContent = char;
  return span;
}

/** `text` as strings and marked controls, in order (none: `[text]`). */
export function bidiParts(text) {
  if (!BIDI.test(text)) return [text];
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(BIDI_ALL)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(mark(m[0]));
    last = m.index + 1;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

function splitText(node) {
  node.replaceWith(...bidiParts(node.data));
}

/** Marks every bidi control in `root`'s text and attributes; one cheap check when there is none. */
export function markBidi(root) {
  for (const el of root.querySelectorAll('[title], [alt]')) {
    for (const name of ['title', 'alt']) {
      const value = el.getAttribute(name);
      if (value && BIDI.test(value)) {
        el.setAttribute(
          name,
          value.replace(BIDI_ALL, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase()}⟩`),
        );
      }
    }
  }
  if (!BIDI.test(root.textContent)) return root;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const hits = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (BIDI.test(node.data)) hits.push(node);
  }
  hits.forEach(splitText);
  return root;
}
