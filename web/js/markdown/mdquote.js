// A long blockquote that is still growing, committed child by child (mdstream.js does the same
// for list items and table rows): without this, each step lexed and drew the whole quote again,
// so a quote of n characters cost n² (a 40 KB quote streamed in 64-character pieces took 6.6 s).
// A child is final once two solid children follow it and a blank quote line ends it; the text
// before that line, lexed alone, must give the same children, or nothing is committed this step
// (the quote is then drawn whole, as before). The DOM equals the one-pass render.
import { h } from '../lib/dom.js';
import { lex, renderTokens } from './markdown.js';
import {
  finishedChildren,
  lineCount,
  lineStart,
  nestedDefs,
  notSpace,
  sameBlocks,
} from './mdtokens.js';

// A shorter quote is drawn whole each step (cheap), as any other block.
export const QUOTE_OPEN = 2048;

/** The element of an open quote (as marked writes it) and its state for `stream.open`. */
export function openQuote() {
  const box = document.createElement('blockquote');
  box.append('\n');
  const el = h('div', { class: 'md-block' });
  el.append(box, '\n');
  return { el, open: { kind: 'quote', box, items: [], tailNodes: [] } };
}

/**
 * One step of the open quote of `stream` (whose text from `stream.pos` on starts with the quote's
 * first uncommitted line): commits its finished children and draws the rest after them.
 * `closing(tokens)` says whether the quote has ended. Returns the tokens after the quote (the
 * stream's tail), or what stream.close() returns once the quote has ended.
 */
export function advanceQuote(stream, closing) {
  const src = stream.text.slice(stream.pos);
  const tokens = lex(src, stream.links);
  const quote = tokens[0];
  const ended = closing(tokens);
  stream.setTailNodes([]);
  if (quote?.type !== 'blockquote') return ended ? stream.close() : tokens;
  const kids = quote.tokens;
  const count = ended ? kids.length : finishedChildren(kids);
  if (count) {
    const used =
      count === kids.length ? quote.raw.length : cutAfter(src, kids, count, stream.links);
    if (used > 0) {
      commit(stream, kids.slice(0, count));
      stream.pos += used;
      if (ended) return stream.close();
      stream.setTailNodes(drawn(kids.slice(count), false));
      return tokens.slice(1);
    }
  }
  if (ended) return stream.close();
  stream.setTailNodes(drawn(kids, false));
  return tokens.slice(1);
}

// Where the first `count` children end in `src` (each child's lines are the quote's lines without
// their markers), if the text before that, lexed alone, gives the same children; else 0.
function cutAfter(src, kids, count, links) {
  const used = lineStart(
    src,
    lineCount(
      kids
        .slice(0, count)
        .map((kid) => kid.raw)
        .join(''),
    ),
  );
  return used > 0 && sameChildren(lex(src.slice(0, used), links)[0], kids.slice(0, count))
    ? used
    : 0;
}

function commit(stream, kids) {
  for (const kid of kids) {
    if (kid.type === 'def') stream.define(kid);
    else if (notSpace(kid)) {
      for (const def of nestedDefs(kid)) stream.define(def);
      const nodes = drawn([kid], true);
      if (!nodes.length) continue;
      stream.open.box.append(...nodes);
      stream.open.items.push({ nodes, raw: kid.raw });
    }
  }
}

const drawn = (kids, final) => [...renderTokens(kids.filter(notSpace), { final }).childNodes];

/** The quote's committed children that use a reference defined late are drawn again. */
export function redrawQuoteItems(open, uses, links) {
  for (const item of open.items) {
    if (!uses(item.raw)) continue;
    const nodes = drawn(lex(item.raw, links), true);
    if (!nodes.length) continue;
    item.nodes[0].before(...nodes);
    for (const node of item.nodes) node.remove();
    item.nodes = nodes;
  }
}

function sameChildren(token, done) {
  return token?.type === 'blockquote' && sameBlocks(token.tokens, done);
}
