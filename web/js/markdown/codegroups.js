// A long code block is drawn as groups of lines, <div><code>…</code></div> of about GROUP
// characters each, instead of one <code>: each group is its own line box container, so the
// engine lays out and shapes only the groups on screen (content-visibility, chat.css), and a
// 400 KB block that closes or opens costs the lines in view, not all of them in one long task.
// The open block of a streaming answer (mdfence.js) and a closed long block (markdown.js) are
// cut by the same rule, so the two look the same. The line break between two groups is the
// groups' own, not in their text.

export const GROUP = 2048;

/**
 * Where the group that holds `size` characters so far ends in `text` (searched from `from`):
 * at the first line end once it holds GROUP characters; -1 while that line end has not come.
 */
export function groupEnd(text, from, size) {
  return text.indexOf('\n', from + Math.max(GROUP - size, 0));
}

/** An empty group for `code` (its language class, no text) and the text node its lines go in. */
export function newGroup(code) {
  const node = document.createTextNode('');
  const copy = code.cloneNode(false);
  copy.append(node);
  const group = document.createElement('div');
  group.append(copy);
  return { group, node };
}

/** Marks a finished group with its line count: its height while it is off screen (chat.css). */
export function sealGroup(group, text) {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines += 1;
  group.style.setProperty('--lines', String(lines));
}

/** Redraws the one <code> of `pre` (text of `text`) as groups. */
export function groupCode(pre, code, text) {
  const groups = [];
  let from = 0;
  while (from <= text.length) {
    const end = groupEnd(text, from, 0);
    const part = text.slice(from, end < 0 ? text.length : end);
    const { group, node } = newGroup(code);
    node.data = part;
    sealGroup(group, part);
    groups.push(group);
    if (end < 0) break;
    from = end + 1;
  }
  pre.replaceChildren(...groups);
}

/** The text of a code block, grouped or not. */
export function codeText(pre) {
  const groups = pre.querySelectorAll(':scope > div');
  if (groups.length) return [...groups].map((group) => group.textContent).join('\n');
  return (pre.querySelector('code') || pre).textContent;
}
