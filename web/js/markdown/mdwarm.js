// The first answer must not pay for compiling the renderer. The JavaScript engine compiles
// marked's, DOMPurify's and highlight.js's code (and each language's grammar) the first time it
// runs: 50-250 ms on a loaded machine, all in the first frames of the first answer. Short
// samples of each kind of block are streamed into a detached element while the page is idle,
// one per idle period, so that cost is paid in small pieces before anyone is waiting; then the
// fonts for CJK, emoji and right-to-left text are found the same way (fontwarm.js).
import { MarkdownStream } from './mdstream.js';
import { FONT_SAMPLES, layOutSample } from '../lib/fontwarm.js';

const SAMPLES = [
  'Some **bold**, *em*, `code`, ~~gone~~ and [a link](https://example.com) 中文 😀\n\n# Title\n\nText\n',
  '- one\n- two\n  - nested\n\n1. first\n2. second\n\n- [ ] task\n- [x] done\n\nAfter\n',
  '| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n\nAfter\n',
  '> quote\n> more\n\n---\n\nAfter\n',
  '```python\ndef f(x: int) -> str:\n    return f"{x}"  # note\n```\n\nAfter\n',
  '```js\nconst a = [1, 2].map((n) => n * 2); // note\n```\n\nAfter\n',
  '```bash\nfor f in *.txt; do echo "$f"; done\n```\n\n```json\n{"a": [1, true, null]}\n```\n',
];

const idle = (fn) =>
  window.requestIdleCallback
    ? window.requestIdleCallback(fn, { timeout: 4000 })
    : setTimeout(fn, 100);

// Laying out a font sample forces the page's pending style and layout into the same task; while
// an answer is being drawn (aria-busy) that is a whole frame's worth on top of the font search,
// one long task (51 ms seen at the start of a fast answer), so it waits for the answer.
const drawing = () => document.querySelector('.msg[aria-busy]') !== null;

/** Streams one sample a idle period (in pieces, as an answer arrives), then lays out the fonts'. */
export function warmRenderer(samples = SAMPLES, fonts = FONT_SAMPLES) {
  let next = 0;
  const step = () => {
    const text = samples[next];
    next += 1;
    if (text == null) {
      const font = fonts[next - samples.length - 1];
      if (!font) return;
      if (drawing()) {
        next -= 1; // a second later: not in the task of a frame being drawn
        setTimeout(() => idle(step), 1000);
        return;
      }
      layOutSample(font);
      idle(step);
      return;
    }
    const stream = new MarkdownStream(document.createElement('div'));
    for (let cut = 8; cut < text.length; cut += 24) stream.setText(text.slice(0, cut));
    while (stream.setText(text, { final: true }));
    idle(step);
  };
  idle(step);
}
