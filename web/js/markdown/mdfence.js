// The fenced code block still open at the end of a streaming answer. Its new text is appended
// to the drawn <code> as text (a DOM text node: nothing is parsed), instead of the block being
// lexed and drawn again every frame, which costs its whole length each time (quadratic in a
// long block). When a line closes it, or the text is final, the stream lexes and draws it once,
// highlighted, like any other block: the finished DOM is the same as a one-pass render.

import { groupEnd, newGroup, sealGroup } from './codegroups.js';
import { bidiParts } from './bidimark.js';
import { OFF_THREAD_MIN } from './hloffthread.js';

// A fence that starts a line (the fast path takes only unindented fences: an indented one has
// its indentation taken off each line, which the one-pass render must do).
const OPENING = /(`{3,}|~{3,})[^\n]*\n/y;

/** Whether `token` is a fenced code block whose opening line is complete (it is surely one). */
export function fenceStarted(token) {
  return token?.type === 'code' && token.codeBlockStyle !== 'indented' && token.raw.includes('\n');
}

/**
 * How many of `tokens` (lexed from `pos` of `text`) are final because of a fenced code block:
 * a fence whose opening line is complete ends the block before it whatever follows, and once a
 * complete line closes it, nothing can change it either.
 */
export function fenceBound(tokens, text, pos) {
  let bound = 0;
  let at = pos;
  tokens.forEach((token, k) => {
    if (fenceStarted(token)) bound = fenceClosed(token, text, at) ? k + 1 : k;
    at += token.raw.length;
  });
  return bound;
}

// Whether `token` is a fenced code block closed by a complete line (nothing can reopen it).
function fenceClosed(token, text, at) {
  if (!fenceStarted(token)) return false;
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(token.raw);
  if (!open) return false;
  const end = at + token.raw.length;
  const last = token.raw.slice(token.raw.lastIndexOf('\n') + 1);
  return text[end] === '\n' && closer(open[1]).test(last);
}

// marked's closing line: up to 3 spaces, the opening fence, more of its character, spaces.
function closer(open) {
  return new RegExp(`^ {0,3}${open}${open[0]}* *$`);
}

export class OpenFence {
  /** The open fence `tail` (tokens lexed from `pos`, drawn in `tailEl`) ends with, or null. */
  static after(tail, text, pos, tailEl) {
    let at = pos;
    let k = 0;
    for (; tail[k]?.type === 'space'; k += 1) at += tail[k].raw.length;
    if (k !== tail.length - 1 || !fenceStarted(tail[k])) return null;
    const pres = tailEl?.querySelectorAll('pre');
    return OpenFence.at(text, at, pres?.length === 1 ? pres[0].querySelector('code') : null);
  }

  /**
   * The open fence at `start` of `text` (its block drawn as `code`), or null when it is not
   * one the fast path can follow.
   */
  static at(text, start, code) {
    OPENING.lastIndex = start;
    const m = OPENING.exec(text);
    if (!m || !code) return null;
    const fence = new OpenFence(m[1], start, start + m[0].length);
    if (!fence.grow(text, code)) return null;
    return fence;
  }

  constructor(open, start, body) {
    this.close = closer(open);
    this.start = start; // where its opening line starts
    this.body = body; // where its text starts
    this.lineStart = body; // the start of the line not yet known to be complete
    this.length = body; // how much of the text is drawn
    this.node = null;
  }

  /** Where the line that closed the fence (grow() said false) ends in `text`. */
  closedAt(text) {
    const nl = text.indexOf('\n', this.lineStart);
    return nl < 0 ? text.length : nl + 1;
  }

  /**
   * After grow() said false: makes the groups drawn so far the closed block's own, when it is
   * long enough that a one-pass render draws it in groups too (they cut the same text, its lines
   * and the line end before the closing line, by the same rule, so the DOM is the same), and
   * returns where the block's source ends in `text` (the closing line, without its line end);
   * -1 for a short block (the caller draws it the usual way: cheap, and its text is exact).
   */
  closeAsBlock(text) {
    if (this.lineStart - this.body < OFF_THREAD_MIN) return -1;
    if (this.length <= this.lineStart) this.append(text.slice(this.length, this.lineStart));
    else {
      // The start of the closing line was drawn as code: it goes (it never holds a line end, so
      // it is all in the last group).
      const code = this.group.firstChild;
      code.replaceChildren(...bidiParts(code.textContent.slice(0, this.lineStart - this.length)));
    }
    sealGroup(this.group, this.group.textContent);
    this.length = this.lineStart;
    return text.indexOf('\n', this.lineStart); // grow() saw the closing line end
  }

  /**
   * Draws what `text` adds to the block; false when a complete line of it closes the fence
   * (then the caller draws the text the usual way). Each character is looked at once.
   */
  grow(text, code = null) {
    let from = this.length;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      if (this.close.test(text.slice(this.lineStart, nl))) return false;
      this.lineStart = nl + 1;
      from = nl + 1;
    }
    if (code) {
      this.pre = code.closest('pre'); // a long block may already be drawn in groups
      this.code = code.cloneNode(false); // each group's <code>: the language class, no text
      this.pre.replaceChildren();
      this.newGroup();
      this.append(text.slice(this.body));
    } else this.append(text.slice(this.length));
    this.length = text.length;
    return true;
  }

  // The text goes into groups of lines (codegroups.js): the engine lays out and shapes the new
  // lines only, not the whole block again each frame.
  append(more) {
    let rest = more;
    for (let at = groupEnd(rest, 0, this.size); at >= 0; at = groupEnd(rest, 0, this.size)) {
      this.put(rest.slice(0, at));
      sealGroup(this.group, this.group.textContent);
      this.newGroup();
      rest = rest.slice(at + 1);
    }
    this.put(rest);
    this.size += rest.length;
  }

  // A bidi control goes in its own marked span, as in the closed block (bidimark.js); the text
  // after it in a new text node.
  put(text) {
    for (const part of bidiParts(text)) {
      if (typeof part === 'string') this.node.appendData(part);
      else {
        const node = document.createTextNode('');
        this.node.after(part, node);
        this.node = node;
      }
    }
  }

  newGroup() {
    const { group, node } = newGroup(this.code);
    this.group = group;
    this.node = node;
    this.size = 0;
    this.pre.append(group);
  }
}
