// A long list item that is still growing, committed child by child (as mdquote.js does for a
// blockquote): without this, each step lexed and drew the whole item again, so an item of n
// characters cost n² (a 40 KB item streamed in 64-character pieces took 15 s of main thread).
// A child is final once two solid children follow it and a blank line ends it. Once some are
// committed, the rest of the item is lexed as an item of its own: its first uncommitted line,
// indented as the item's text is, gets the item's marker back (same width, so offsets agree).
// A cut is taken only if the text before it, lexed alone, gives the same children, and the line
// after it starts plain text at the item's indent (no code, no task box); else the item is drawn
// whole, as before. The DOM equals the one-pass render (tests/web/test_markdown_stream.py).
// An item that ends with a nested list (even in a tight list) commits it inner item by inner
// item instead (mdinner.js).
import { lex, renderTokens } from './markdown.js';
import {
  finishedChildren,
  lineCount,
  lineStart,
  loosen,
  nestedDefs,
  notSpace,
  sameBlocks,
} from './mdtokens.js';
import { startInner, stepInner, drawInnerRest, markStale } from './mdinner.js';

// A shorter item is drawn whole each step (cheap), as before.
export const ITEM_OPEN = 2048;

// The item's first line: up to 3 spaces, its marker and 1-4 spaces (its text's indent), then text.
const FIRST = /^( {0,3}(?:[*+-]|\d{1,9}[.)]) {1,4})(?=\S)/;
// A line after a cut that would mean something else as an item's first line.
const NOT_PLAIN = /^(?:[ \t\n]|\[[ \txX]\])/;
const STARTED = /^ {0,3}(?:[*+-]|\d{1,9}[.)])[ \t]+\S/;

const drawn = (kids, final) => [...renderTokens(kids.filter(notSpace), { final }).childNodes];

/**
 * Tries to start committing `items[0]` (the open list's first unfinished item, at stream.pos)
 * child by child. Returns the stream's tail tokens if it did, else null (draw it as before).
 */
export function startItem(stream, items, tokens) {
  const open = stream.open;
  const item = items[0];
  const m = FIRST.exec(item?.raw || '');
  if (!m || item.raw.length < ITEM_OPEN) return null;
  if (open.loose) loosen(item);
  const grow = {
    prefix: m[1],
    start: stream.pos,
    entry: null,
    kids: [],
    rest: [],
    inner: null,
    stale: false,
  };
  const src = stream.text.slice(stream.pos);
  // Children spaced by blank lines (a loose list), or the nested list the item ends with.
  if (
    !(open.loose && commitKids(stream, grow, src, src, item)) &&
    !startInner(stream, grow, src, src, item)
  ) {
    return null;
  }
  open.grow = grow;
  drawRest(stream, grow, item, items.slice(1));
  return tokens.slice(1);
}

/**
 * One step of the growing item. `closing(tokens)` says whether the list has ended. Returns the
 * stream's tail tokens while the item grows, or null once it has ended (or could not be followed:
 * then it is drawn whole again) and the list goes on the usual way from stream.pos.
 */
export function growItem(stream, closing) {
  const open = stream.open;
  const grow = open.grow;
  const src = stream.text.slice(stream.pos);
  const width = grow.prefix.length;
  const syn = grow.prefix + src.slice(width);
  const tokens = lex(syn, stream.links);
  const list = tokens[0];
  stream.setTailNodes([]);
  clearRest(grow);
  if (list?.type !== 'list' || !src.startsWith(' '.repeat(width))) return abandon(stream);
  // A tight list turning loose draws its items again: this one is drawn whole again.
  if (grow.stale || (list.loose && !open.loose)) return abandon(stream);
  const { items } = list;
  const item = items[0];
  if (open.loose) loosen(item);
  const next = items.length > 2 || (items.length === 2 && STARTED.test(items[1].raw));
  if (closing(tokens) || next) {
    if (grow.inner && !stepInner(stream, grow, src, syn, item, true)) return abandon(stream);
    if (!grow.inner) commit(stream, grow, item.tokens);
    else if (grow.stale) return abandon(stream);
    // Drawn again whole if the list turns loose later (mdstream.js advanceList).
    const end = stream.pos + item.raw.length;
    if (!open.loose)
      grow.entry.item = lex(stream.text.slice(grow.start, end), stream.links)[0]?.items[0];
    stream.pos += item.raw.length;
    grow.entry.raw = stream.text.slice(grow.start, stream.pos);
    open.grow = null;
    return null;
  }
  if (grow.inner) {
    if (!stepInner(stream, grow, src, syn, item, false)) return abandon(stream);
  } else if (!commitKids(stream, grow, src, syn, item)) startInner(stream, grow, src, syn, item);
  drawRest(stream, grow, item, items.slice(1));
  return tokens.slice(1);
}

/** The growing item's committed children that use a reference defined late are drawn again. */
export function redrawItemKids(grow, uses, links) {
  markStale(grow, uses);
  for (const kid of grow.kids) {
    if (!uses(kid.raw)) continue;
    const nodes = drawn(lex(kid.raw, links), true);
    if (!nodes.length) continue;
    kid.nodes[0].before(...nodes);
    for (const node of kid.nodes) node.remove();
    kid.nodes = nodes;
  }
}

// Commits the item's finished children if the cut after them is safe; whether it did.
function commitKids(stream, grow, src, syn, item) {
  const kids = item.tokens;
  const count = finishedChildren(kids);
  if (!count) return false;
  const done = kids.slice(0, count);
  const used = lineStart(src, lineCount(done.map((kid) => kid.raw).join('')));
  if (used <= 0 || src.indexOf('\n', used) < 0) return false;
  const width = grow.prefix.length;
  if (
    !src.startsWith(' '.repeat(width), used) ||
    NOT_PLAIN.test(src.slice(used + width, used + width + 4))
  )
    return false;
  const check = lex(syn.slice(0, used), stream.links)[0];
  if (
    check?.type !== 'list' ||
    check.items.length !== 1 ||
    !sameBlocks(check.items[0].tokens, done)
  )
    return false;
  commit(stream, grow, done);
  stream.pos += used;
  item.tokens = kids.slice(count);
  return true;
}

function commit(stream, grow, kids) {
  if (!grow.entry) {
    const el = document.createElement('li');
    stream.open.box.append(el, '\n');
    grow.entry = { el, raw: '', item: null };
    stream.open.items.push(grow.entry);
  }
  for (const kid of kids) {
    if (kid.type === 'def') stream.define(kid);
    else if (notSpace(kid)) {
      for (const def of nestedDefs(kid)) stream.define(def);
      const nodes = drawn([kid], true);
      if (!nodes.length) continue;
      grow.entry.el.append(...nodes);
      grow.kids.push({ nodes, raw: kid.raw });
    }
  }
}

// The item's unfinished children (inside its element) and the items after it (the list's tail).
function drawRest(stream, grow, item, others) {
  clearRest(grow);
  if (grow.inner) drawInnerRest(grow, item.tokens.find(notSpace));
  else {
    grow.rest = drawn(item.tokens, false);
    grow.entry.el.append(...grow.rest);
  }
  stream.setTailNodes(stream.itemEls(others, false).flatMap((el) => [el, '\n']));
}

function clearRest(grow) {
  for (const node of grow.rest) node.remove();
  grow.rest = [];
}

// The item could not be followed: its element goes, and it is lexed and drawn whole again.
function abandon(stream) {
  const { open } = stream;
  const { grow } = open;
  grow.entry.el.nextSibling?.remove(); // the '\n' after it
  grow.entry.el.remove();
  open.items.splice(open.items.indexOf(grow.entry), 1);
  stream.pos = grow.start;
  open.grow = null;
  return null;
}
