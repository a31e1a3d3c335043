// highlight.js's HTML as a list of tokens, so the page builds the nodes itself and never parses
// markup (hloffthread.js). Shared by the worker (hlworker.js) and the page's own fallback.

// highlight.js's output holds only <span class="…">, </span> and escaped text.
const PIECE = /<span class="([^"<>]*)">|<\/span>|([^<]+)|</g;
const ENTITY = /&(?:amp|lt|gt|quot|#x27);/g;
const CHARS = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'" };

/** A string is text, `[cls]` opens a span, `0` closes one. Linear in the HTML's length. */
export function tokensOf(html) {
  const out = [];
  for (const m of html.matchAll(PIECE)) {
    if (m[1] !== undefined) out.push([m[1]]);
    else if (m[2] !== undefined) out.push(m[2].replace(ENTITY, (e) => CHARS[e]));
    else if (m[0] === '</span>') out.push(0);
    else out.push(m[0]); // a lone '<' (highlight.js escapes it: never expected)
  }
  return out;
}
