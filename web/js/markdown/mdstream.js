// Incremental Markdown for a text that grows (a streaming answer or its thinking). A block is
// committed (rendered once, kept) when two more blocks follow it, since only then can no later
// text change it; a list or table that is still growing is committed item by item / row by row,
// a long blockquote child by child (mdquote.js), so a frame costs the size of the unfinished
// part, never of the whole answer; a fenced code block ends the blocks before it, and while open
// it grows as text (mdfence.js). Reference definitions that arrive later redraw the blocks that
// use them. The finished DOM equals the one-pass render of the whole text
// (tests/web/test_markdown_stream.py checks it).
import { h } from '../lib/dom.js';
import { lex, renderTokens, renderBlocks, highlight } from './markdown.js';
import { OpenFence, fenceStarted, fenceBound } from './mdfence.js';
import { markerOf, loosen, nestedDefs, notSpace } from './mdtokens.js';
import { QUOTE_OPEN, openQuote, advanceQuote, redrawQuoteItems } from './mdquote.js';
import { verify } from './mdverify.js';
import { startItem, growItem, redrawItemKids } from './mdlistitem.js';
import { openTable, advanceTable } from './mdtable.js';

// An item whose marker is followed by text really is the next item: the one before it ended.
const STARTED = /^ {0,3}(?:[*+-]|\d{1,9}[.)])[ \t]+\S/;
// The final check lexes the whole text once; above this size it would be one long task.
const VERIFY_LIMIT = 65_536;
// A burst (a slow frame, a hidden popup, a long finished message) is drawn in steps of at least
// this many characters, for at most SLICE_MS a call, over several frames: never one long task.
const STEP = 1024;
const SLICE_MS = 8;
// An open fenced code block grows by at most this many characters a call.
const FENCE_STEP = 4096;
// A finished text up to this size is drawn in one pass.
const WHOLE_LIMIT = 8192;

const shown = (token) => token.type !== 'space' && token.type !== 'def';
const countSolid = (tokens) => tokens.reduce((n, token) => n + (notSpace(token) ? 1 : 0), 0);
const normal = (s) => s.toLowerCase().replace(/\s+/g, ' ');
// The block after the first one is a fenced code block: the first one has ended.
const fenceNext = (tokens) => fenceStarted(tokens.slice(1).find(notSpace));

export class MarkdownStream {
  constructor(container) {
    this.el = container;
    this.repairs = 0; // blocks the final check had to redraw (tests expect none)
    this.reset();
  }

  reset() {
    this.el.replaceChildren();
    this.text = ''; // what is drawn: the text given, or a prefix of it (see BUDGET)
    this.full = '';
    this.pos = 0; // text before this offset is committed
    this.links = {}; // committed reference definitions, first one wins (as in marked)
    this.blocks = []; // committed top-level blocks: { el, raw, start }
    this.open = null; // the list or table being committed item by item
    this.tail = null; // redrawn every frame with the unfinished rest
    this.fence = null; // the open code block the tail ends with, grown as text (mdfence.js)
    this.wholeTo = 0; // the end of the code block that just closed: drawn in one step
    this.done = false;
  }

  /**
   * Show `text` (the whole text so far; it only grows). `final`: nothing more will come. `until`:
   * when this frame's drawing budget (shared by its messages) ends, a performance.now() time.
   * Returns true when part of the text is still to be drawn: call again next frame.
   */
  setText(text, { final = false, until = 0 } = {}) {
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (this.done && text === this.text) return false;
    if (this.done || !text.startsWith(this.text)) this.reset();
    if (text === this.text && !final) return false;
    this.full = text;
    if (final && !this.pos && !this.blocks.length && text.length <= WHOLE_LIMIT) {
      this.text = text;
      this.renderWhole();
      return false;
    }
    if (this.fence) {
      if (until && performance.now() >= until) return true;
      // A burst goes in FENCE_STEP at a time: its lines' nodes are styled and laid out in the
      // same frame, so one frame never takes a whole fast burst.
      const shown = this.fenceCut(text);
      const open = this.fence.grow(shown);
      if (open && (!final || shown !== text)) {
        this.text = shown;
        return shown !== text;
      }
      // Closed: a long block keeps its drawn groups; otherwise (or final) it is lexed and drawn
      // the usual way, in one step (not a growing series).
      if (open || !this.keepFence(text))
        this.wholeTo = open ? text.length : this.fence.closedAt(text);
      this.fence = null;
    }
    const start = performance.now();
    if (until && start >= until) return true;
    const deadline = until || start + SLICE_MS;
    let partial;
    let tail;
    do {
      const upto = this.cut(text);
      partial = upto < text.length;
      this.text = partial ? text.slice(0, upto) : text;
      tail = this.advance(final && !partial);
    } while (partial && performance.now() < deadline);
    this.drawTail(tail);
    if (final && !partial) {
      this.done = true;
      if (text.length <= VERIFY_LIMIT) verify(this);
    } else this.fence = this.followFence(tail);
    return partial;
  }

  // The next step's end, at a line end where it can: a step grows with the unfinished part (lexed
  // again each step), so drawing a text costs time linear in its length.
  cut(text) {
    const drawn = this.text.length;
    const step = Math.max(STEP, drawn - this.pos, this.wholeTo - drawn);
    if (text.length - drawn <= step) return text.length;
    const nl = text.lastIndexOf('\n', drawn + step);
    return nl > drawn ? nl : drawn + step;
  }

  // The end of what an open fence draws next: up to FENCE_STEP more, at a line end where it can
  // (never between the two halves of a surrogate pair).
  fenceCut(text) {
    const most = this.text.length + FENCE_STEP;
    if (text.length <= most) return text;
    const nl = text.lastIndexOf('\n', most);
    if (nl >= this.text.length) return text.slice(0, nl + 1);
    const low = text.charCodeAt(most);
    return text.slice(0, low >= 0xdc00 && low <= 0xdfff ? most + 1 : most);
  }

  // The tail is one open fenced code block: later text is appended to it as text.
  followFence(tail) {
    return this.open || !tail ? null : OpenFence.after(tail, this.text, this.pos, this.tail);
  }

  // A long fenced block that a line closed is committed as drawn while it streamed (mdfence.js):
  // lexing and drawing its 400 KB again would be one long task, for the same DOM.
  keepFence(text) {
    const end = this.fence.closeAsBlock(text);
    if (end < 0) return false;
    // The tail holds the block and the line end after it, as marked draws them: it becomes the
    // committed block in place (moving 400 KB of nodes would style them all again).
    const el = this.tail;
    el.classList.remove('md-tail');
    this.tail = null;
    const { start } = this.fence;
    this.blocks.push({ el, raw: text.slice(start, end), start });
    this.pos = end;
    this.text = text.slice(0, end);
    highlight(el);
    return true;
  }

  finish() {
    return this.setText(this.full, { final: true });
  }

  /** A finished text in one go: one lexer pass, one sanitiser pass. */
  renderWhole() {
    const tokens = lex(this.text).filter(shown);
    const fragment = renderBlocks(tokens);
    const els = [...fragment.children];
    this.blocks = tokens.map((token, i) => ({ el: els[i], raw: token.raw, start: 0 }));
    this.el.replaceChildren(fragment);
    this.pos = this.text.length;
    this.done = true;
  }

  // Commits what is final; returns the unfinished tokens after it (drawn as the tail).
  advance(final) {
    for (;;) {
      if (this.open) {
        const rest = this.advanceOpen(final);
        if (rest) return rest;
        continue; // the list or table ended: go on after it
      }
      const tokens = lex(this.text.slice(this.pos), this.links);
      let left = countSolid(tokens);
      let i = 0;
      const sure = fenceBound(tokens, this.text, this.pos);
      // A space token is committed with the block after it: alone it may be a line's start.
      const batch = [];
      for (; i < tokens.length; i += 1) {
        if (!final && i >= sure && left < 3 && !(left === 2 && this.surelyOpens(tokens, i))) break;
        if (notSpace(tokens[i])) left -= 1;
        batch.push({ token: tokens[i], start: this.pos });
        this.pos += tokens[i].raw.length;
      }
      this.commit(batch);
      let at = this.pos;
      let j = i;
      for (; tokens[j]?.type === 'space'; j += 1) at += tokens[j].raw.length;
      if (!final && tokens[j] && this.openBlock(tokens[j], at)) continue;
      return tokens.slice(i);
    }
  }

  advanceOpen(final) {
    const { kind } = this.open;
    if (kind === 'list') return this.advanceList(final);
    const ends = (tokens) => final || countSolid(tokens.slice(1)) >= 2 || fenceNext(tokens);
    if (kind === 'table') return advanceTable(this, ends);
    return advanceQuote(this, ends);
  }

  // Whether the second block from tokens[i] on is certainly a list or table: then the block
  // before it is finished (so a long list after an intro is committed item by item at once).
  surelyOpens(tokens, i) {
    let at = this.pos;
    let seen = 0;
    for (let k = i; k < tokens.length; k += 1) {
      const token = tokens[k];
      if (notSpace(token) && ++seen === 2) {
        if (token.type === 'list') return STARTED.test(token.items[0]?.raw || '');
        if (token.type !== 'table') return false;
        const lines = token.raw.split('\n');
        return this.text.startsWith(`${lines[0]}\n${lines[1]}\n`, at);
      }
      at += token.raw.length;
    }
    return false;
  }

  // Finished blocks, drawn in one sanitiser pass (a burst can finish many at once).
  commit(batch) {
    for (const { token } of batch) {
      if (token.type === 'def') this.define(token);
      else if (shown(token)) for (const def of nestedDefs(token)) this.define(def);
    }
    const done = batch.filter(({ token }) => shown(token));
    if (!done.length) return;
    const fragment = renderBlocks(done.map(({ token }) => token));
    [...fragment.children].forEach((el, k) =>
      this.blocks.push({ el, raw: done[k].token.raw, start: done[k].start }),
    );
    this.el.insertBefore(fragment, this.tail);
  }

  place(el) {
    this.el.insertBefore(el, this.tail);
  }

  define(def) {
    if (Object.hasOwn(this.links, def.tag)) return;
    this.links[def.tag] = { href: def.href, title: def.title };
    const needle = `[${def.tag}]`;
    const uses = (raw) => raw.includes('[') && normal(raw).includes(needle);
    for (const block of this.blocks) {
      if (block.raw != null && uses(block.raw)) {
        block.el.replaceChildren(renderTokens(lex(block.raw, this.links).filter(shown)));
      }
    }
    if (this.open?.kind === 'quote') redrawQuoteItems(this.open, uses, this.links);
    if (this.open?.kind !== 'list') return;
    if (this.open.grow) redrawItemKids(this.open.grow, uses, this.links);
    for (const item of this.open.items) {
      if (!uses(item.raw)) continue;
      const list = lex(item.raw, this.links)[0];
      if (list?.type !== 'list') continue;
      const [el] = this.itemEls([list.items[0]]);
      item.el.replaceWith(el);
      Object.assign(item, { el, item: list.items[0] });
    }
  }

  // ---- lists (and tables, mdtable.js) that are still growing -------------------------------

  // Starts committing a list or table at `start` item by item; false for other blocks.
  openBlock(token, start) {
    if (token.type === 'blockquote' && token.raw.length >= QUOTE_OPEN) {
      const { el, open } = openQuote();
      this.open = open;
      this.pos = start;
      this.place(el);
      this.blocks.push({ el, raw: null, start });
      return true;
    }
    if (token.type !== 'list' && token.type !== 'table') return false;
    const el = h('div', { class: 'md-block' });
    if (token.type === 'list') {
      const list = token.ordered
        ? h('ol', token.start !== 1 ? { start: token.start } : {})
        : h('ul');
      list.append('\n');
      el.append(list, '\n'); // as marked writes it: the DOM equals a one-pass render
      this.open = {
        kind: 'list',
        box: list,
        ordered: token.ordered,
        first: token.start,
        marker: markerOf(token),
        loose: false,
        items: [],
        tailNodes: [],
        grow: null,
      };
      this.pos = start;
    } else if (!openTable(this, token, start, el)) return false; // its delimiter row still grows
    this.place(el);
    this.blocks.push({ el, raw: null, start });
    return true;
  }

  advanceList(final) {
    const open = this.open;
    const ends = (tokens) => final || countSolid(tokens.slice(1)) >= 2 || fenceNext(tokens);
    if (open.grow) {
      const rest = growItem(this, ends); // a long item, child by child (mdlistitem.js)
      if (rest) return rest;
    }
    const src = this.text.slice(this.pos);
    const tokens = lex(src, this.links);
    const list = tokens[0];
    const closing = ends(tokens);
    if (list?.type !== 'list' || list.ordered !== open.ordered || markerOf(list) !== open.marker) {
      if (closing) return this.close();
      this.setTailNodes([]);
      return tokens;
    }
    const { items } = list;
    const started = STARTED.test(items[items.length - 1].raw);
    const count = closing ? items.length : Math.max(items.length - (started ? 1 : 2), 0);
    // Loose if any item is spaced from the next; an item not started yet must not decide it.
    let loose = list.loose;
    if (!closing && !started && items.length > 1) {
      const cut = items.slice(0, -1).reduce((n, item) => n + item.raw.length, 0);
      loose = lex(src.slice(0, cut), this.links)[0]?.loose || false;
    }
    if (loose && !open.loose && open.items.length) {
      open.loose = true;
      const els = this.itemEls(open.items.map((entry) => entry.item));
      open.items.forEach((entry, k) => {
        entry.el.replaceWith(els[k]);
        entry.el = els[k];
      });
    }
    open.loose = loose || open.loose;
    this.setTailNodes([]);
    const done = items.slice(0, count);
    this.itemEls(done).forEach((el, k) => {
      open.box.append(el, '\n');
      open.items.push({ el, raw: done[k].raw, item: done[k] });
      this.pos += done[k].raw.length;
    });
    if (closing) return this.close();
    const grown = startItem(this, items.slice(count), tokens);
    if (grown) return grown;
    this.setTailNodes(this.itemEls(items.slice(count), false).flatMap((el) => [el, '\n']));
    return tokens.slice(1);
  }

  // List items drawn in one pass, as items of the open list.
  itemEls(items, final = true) {
    if (!items.length) return [];
    const open = this.open;
    if (open.loose) items.forEach(loosen);
    const token = {
      type: 'list',
      raw: '',
      ordered: open.ordered,
      start: open.first,
      loose: open.loose,
      items,
    };
    return [...renderTokens([token], { final }).firstElementChild.children];
  }

  setTailNodes(nodes) {
    const open = this.open;
    for (const node of open.tailNodes) node.remove?.();
    open.tailNodes = nodes.map((node) =>
      typeof node === 'string' ? document.createTextNode(node) : node,
    );
    if (open.tailNodes.length) open.box.append(...open.tailNodes);
  }

  close() {
    this.setTailNodes([]);
    const block = this.blocks[this.blocks.length - 1];
    if (this.open.kind !== 'table' && !this.open.items.length) {
      // It was no list after all ("* * *" is a rule), or a quote that ended before any of it was
      // committed: it is drawn the usual way.
      block.el.remove();
      this.blocks.pop();
    } else block.raw = this.text.slice(block.start, this.pos);
    this.open = null;
    return null;
  }

  // ---- the rest ------------------------------------------------------------------------------

  drawTail(tokens) {
    const rest = tokens.filter(shown);
    if (!rest.length) {
      this.tail?.remove();
      this.tail = null;
      return;
    }
    if (!this.tail) {
      this.tail = h('div', { class: 'md-block md-tail' });
      this.el.append(this.tail);
    }
    this.tail.replaceChildren(renderTokens(rest, { final: false }));
  }
}
