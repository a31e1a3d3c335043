// The incremental renderer's safety net (mdstream.js): once a text is final, its committed blocks
// are compared with a one-pass lexing of the whole text, and those that differ are drawn again.
import { lex, renderBlocks } from './markdown.js';

const shown = (token) => token.type !== 'space' && token.type !== 'def';

/**
 * Redraws the blocks of `stream` from the first one whose source differs from the one-pass
 * lexing of `stream.text`; counts them in `stream.repairs` (the streaming tests expect none).
 */
export function verify(stream) {
  const tokens = lex(stream.text).filter(shown);
  const same = (block, token) => block?.raw != null && block.raw.trimEnd() === token.raw.trimEnd();
  let i = 0;
  while (i < tokens.length && same(stream.blocks[i], tokens[i])) i += 1;
  if (i === tokens.length && i === stream.blocks.length) return;
  stream.repairs += Math.max(tokens.length, stream.blocks.length) - i;
  for (const block of stream.blocks.slice(i)) block.el.remove();
  const fragment = renderBlocks(tokens.slice(i));
  const els = [...fragment.children];
  stream.el.append(fragment);
  stream.blocks = stream.blocks
    .slice(0, i)
    .concat(tokens.slice(i).map((token, k) => ({ el: els[k], raw: token.raw, start: 0 })));
}
