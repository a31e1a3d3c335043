// The code highlighter's own thread: highlight.js takes one task for a whole block (40-80 ms
// for 8-50 KB on a busy machine), which froze the page when a long block closed. Here it runs
// off the main thread; the page gets back a list of tokens, never HTML (hloffthread.js builds
// the nodes itself, so nothing this thread says is ever parsed as markup).
import hljs from '../vendor/highlight.min.js';

// highlight.js's own HTML holds only <span class="…">, </span> and escaped text.
const PIECE = /<span class="([^"<>]*)">|<\/span>|([^<]+)|</g;
const ENTITY = /&(?:amp|lt|gt|quot|#x27);/g;
const CHARS = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'" };

/** The tokens of highlight.js's HTML: a string is text, `[cls]` opens a span, `0` closes it. */
function tokens(html) {
  const out = [];
  for (const m of html.matchAll(PIECE)) {
    if (m[1] !== undefined) out.push([m[1]]);
    else if (m[2] !== undefined) out.push(m[2].replace(ENTITY, (e) => CHARS[e]));
    else if (m[0] === '</span>') out.push(0);
    else out.push(m[0]); // a lone '<' (highlight.js escapes it: never expected)
  }
  return out;
}

globalThis.onmessage = ({ data }) => {
  const { id, lang, text } = data;
  try {
    const { value } = hljs.highlight(text, { language: lang, ignoreIllegals: true });
    globalThis.postMessage({ id, tokens: tokens(value) });
  } catch {
    globalThis.postMessage({ id, tokens: null });
  }
};
