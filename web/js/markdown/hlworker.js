// The code highlighter's own thread: highlight.js takes one task for a whole block (40-80 ms
// for 8-50 KB on a busy machine), which froze the page when a long block closed. Here it runs
// off the main thread; the page gets back a list of tokens, never HTML (hloffthread.js builds
// the nodes itself, so nothing this thread says is ever parsed as markup).
import hljs from '../../vendor/highlight.min.js';
import { tokensOf } from './hltokens.js';

globalThis.onmessage = ({ data }) => {
  const { id, lang, text } = data;
  try {
    const { value } = hljs.highlight(text, { language: lang, ignoreIllegals: true });
    globalThis.postMessage({ id, tokens: tokensOf(value) });
  } catch {
    globalThis.postMessage({ id, tokens: null });
  }
};
