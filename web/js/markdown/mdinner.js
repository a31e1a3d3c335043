// The nested list at the end of a long list item that is still growing, committed inner item by
// inner item (mdlistitem.js does it child by child for items spaced by blank lines). The most
// common long item a model writes is a heading line and a tight nested list
// ("1. **Setup**\n   - step a\n   - step b\n…"): drawn whole each step, it cost n² (40 KB in
// 64-character pieces took 3 s of main thread). An inner item is final once the next one has
// started and the text before it, lexed alone, gives the same children; any other shape (the
// item turning loose, text after the inner list, a late reference used by drawn text) draws the
// item whole again, as before. The DOM equals the one-pass render
// (tests/web/test_markdown_stream.py).
import { lex, renderTokens } from './markdown.js';
import { lineCount, lineStart, loosen, markerOf, nestedDefs, notSpace } from './mdtokens.js';

// An inner item whose marker is followed by text: the one before it has ended.
const STARTED = /^ {0,3}(?:[*+-]|\d{1,9}[.)])[ \t]+\S/;
const BLANK_END = /\n[ \t]*\n$/;

const kind = (token) => (token.type === 'text' ? 'paragraph' : token.type);
const same = (a, b) => kind(a) === kind(b) && a.raw.trimEnd() === b.raw.trimEnd();

/**
 * Starts committing the nested list that ends `item` (the rest of the growing item, lexed from
 * `syn`, which is `src` with the item's marker in place of its indent). Draws the item's element
 * with its first children and finished inner items; whether it did.
 */
export function startInner(stream, grow, src, syn, item) {
  const kids = item.tokens.filter(notSpace);
  const list = kids[kids.length - 1];
  if (list?.type !== 'list') return false;
  const cut = innerCut(grow, src, item, list);
  if (!cut) return false;
  const check = lex(syn.slice(0, cut.used), stream.links)[0];
  const checked = check?.type === 'list' && check.items.length === 1 ? check.items[0] : null;
  if (!checked || (checked.loose && !stream.open.loose)) return false;
  const heads = checked.tokens.filter(notSpace);
  const inner = heads[heads.length - 1];
  if (inner?.type !== 'list' || heads.length !== kids.length || !sameItems(inner, list, cut.count))
    return false;
  if (!heads.slice(0, -1).every((kid, k) => same(kid, kids[k]))) return false;
  const loose = inner.loose || BLANK_END.test(src.slice(0, cut.used));
  if (loose) {
    inner.loose = true;
    inner.items.forEach(loosen);
  }
  for (const def of nestedDefs(checked)) stream.define(def);
  const [li] = stream.itemEls([checked]);
  const box = [...li.children].reverse().find((el) => el.tagName === 'UL' || el.tagName === 'OL');
  if (!box) return false;
  if (grow.entry) grow.entry.el.append(...li.childNodes);
  else {
    stream.open.box.append(li, '\n');
    grow.entry = { el: li, raw: '', item: null };
    stream.open.items.push(grow.entry);
  }
  const entries = [...box.children].map((el, k) => ({
    el,
    raw: inner.items[k].raw,
    item: inner.items[k],
  }));
  grow.inner = {
    box,
    ordered: list.ordered,
    marker: markerOf(list),
    loose,
    items: entries,
    raws: [...heads.slice(0, -1).map((kid) => kid.raw), ...entries.map((entry) => entry.raw)],
  };
  grow.rest = [];
  stream.pos += cut.used;
  item.tokens = [{ ...list, items: list.items.slice(cut.count) }];
  return true;
}

/**
 * One step of the inner list: `item` is the growing item's rest, lexed from `syn`. `ending`: the
 * outer item has ended (commit all). Returns false when the shape is not one it can follow.
 */
export function stepInner(stream, grow, src, syn, item, ending) {
  const inner = grow.inner;
  const kids = item.tokens.filter(notSpace);
  const list = kids[0];
  if (
    grow.stale ||
    list?.type !== 'list' ||
    list.ordered !== inner.ordered ||
    markerOf(list) !== inner.marker
  ) {
    return false;
  }
  if (kids.length !== 1) return false; // text after the inner list: drawn whole again
  if (ending) {
    if (list.loose) turnLoose(inner);
    commitInner(stream, inner, list.items);
    return true;
  }
  if (list.loose && !inner.loose && STARTED.test(list.items[list.items.length - 1].raw))
    turnLoose(inner);
  const cut = innerCut(grow, src, item, list);
  if (cut) {
    const check = lex(syn.slice(0, cut.used), stream.links)[0];
    const checked = check?.type === 'list' && check.items.length === 1 ? check.items[0] : null;
    const heads = checked?.tokens.filter(notSpace) || [];
    if (heads.length === 1 && heads[0].type === 'list' && sameItems(heads[0], list, cut.count)) {
      if (heads[0].loose || BLANK_END.test(src.slice(0, cut.used))) turnLoose(inner);
      commitInner(stream, inner, list.items.slice(0, cut.count));
      stream.pos += cut.used;
      list.items = list.items.slice(cut.count);
    }
  }
  item.tokens = [list];
  return true;
}

/** The inner list's unfinished items, drawn after its committed ones. */
export function drawInnerRest(grow, list) {
  const inner = grow.inner;
  grow.rest = innerEls(inner, list?.items || [], false).flatMap((el) => [
    el,
    document.createTextNode('\n'),
  ]);
  inner.box.append(...grow.rest);
}

/** A late reference used by text already drawn: the item is drawn whole again next step. */
export function markStale(grow, uses) {
  if (grow.inner?.raws.some(uses)) grow.stale = true;
}

// Where the finished inner items end in `src` (the next inner item starts there, at the item's
// indent plus up to 3 spaces), and how many there are; null if none is finished.
function innerCut(grow, src, item, list) {
  const { items } = list;
  const started = items.length && STARTED.test(items[items.length - 1].raw);
  const count = Math.max(items.length - (started ? 1 : 2), 0);
  if (!count) return null;
  const before = item.tokens.slice(0, item.tokens.indexOf(list));
  const lines = lineCount([...before, ...items.slice(0, count)].map((token) => token.raw).join(''));
  const used = lineStart(src, lines);
  const width = grow.prefix.length;
  if (used <= 0 || !src.startsWith(' '.repeat(width), used)) return null;
  if (!STARTED.test(src.slice(used + width, src.indexOf('\n', used) >>> 0))) return null;
  return { used, count };
}

function commitInner(stream, inner, items) {
  for (const it of items) for (const def of nestedDefs(it)) stream.define(def);
  innerEls(inner, items, true).forEach((el, k) => {
    inner.box.append(el, '\n');
    inner.items.push({ el, raw: items[k].raw, item: items[k] });
    inner.raws.push(items[k].raw);
  });
}

// Committed inner items drawn tight, in a list that turned loose: drawn again, loose.
function turnLoose(inner) {
  if (inner.loose) return;
  inner.loose = true;
  const els = innerEls(
    inner,
    inner.items.map((entry) => entry.item),
    true,
  );
  inner.items.forEach((entry, k) => {
    entry.el.replaceWith(els[k]);
    entry.el = els[k];
  });
}

function innerEls(inner, items, final) {
  if (!items.length) return [];
  if (inner.loose) items.forEach(loosen);
  const token = {
    type: 'list',
    raw: '',
    ordered: inner.ordered,
    start: 1,
    loose: inner.loose,
    items,
  };
  return [...renderTokens([token], { final }).firstElementChild.children];
}

function sameItems(a, b, count) {
  return (
    a.items.length === count &&
    a.items.every((it, k) => it.raw.trimEnd() === b.items[k].raw.trimEnd())
  );
}
