// A table that is still growing in a streaming answer (mdstream.js): its header is drawn once,
// then its rows are committed one by one as the next row starts, so a long table costs each
// frame its unfinished last row, not the whole table again.
import { lex, renderTokens } from './markdown.js';

/**
 * Starts committing the table `token` (at `start` of the stream's text) row by row in `el`;
 * false while its delimiter row is still growing.
 */
export function openTable(stream, token, start, el) {
  const lines = token.raw.split('\n');
  const head = `${lines[0]}\n${lines[1]}\n`;
  if (!stream.text.startsWith(head, start)) return false;
  el.append(renderTokens([{ ...token, rows: [] }]));
  stream.open = {
    kind: 'table',
    table: el.querySelector('table'),
    box: null,
    head,
    items: [],
    tailNodes: [],
  };
  stream.pos = start + head.length;
  return true;
}

/**
 * Commits the rows that are final (all of them once `ends(tokens)` says the table ended) and
 * draws the last one in the tail; returns the tokens after the table.
 */
export function advanceTable(stream, ends) {
  const { open } = stream;
  const tokens = lex(open.head + stream.text.slice(stream.pos), stream.links);
  const table = tokens[0]; // the header alone is a table already
  const closing = ends(tokens);
  const end = stream.pos + table.raw.length - open.head.length;
  const lines = table.raw.split('\n').slice(2);
  const count = closing ? table.rows.length : Math.max(table.rows.length - 1, 0);
  stream.setTailNodes([]);
  rowEls(table, table.rows.slice(0, count)).forEach((el, i) => {
    tbody(open).append(el, '\n');
    open.items.push({ el, raw: lines[i] });
    stream.pos += lines[i].length + 1;
  });
  if (closing) {
    stream.pos = end;
    return stream.close();
  }
  const rest = rowEls(table, table.rows.slice(count), false).flatMap((el) => [el, '\n']);
  if (rest.length) tbody(open);
  stream.setTailNodes(rest);
  return tokens.slice(1);
}

function tbody(open) {
  if (!open.box) {
    open.box = document.createElement('tbody');
    open.table.append(open.box);
  }
  return open.box;
}

// Table rows drawn in one pass.
function rowEls(table, rows, final = true) {
  if (!rows.length) return [];
  return [...renderTokens([{ ...table, rows }], { final }).querySelectorAll('tbody > tr')];
}
