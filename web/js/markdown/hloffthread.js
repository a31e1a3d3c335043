// Long code blocks are highlighted off the main thread. highlight.js takes one task for a whole
// block (40-80 ms for 8-50 KB on a busy machine), and laying out a 45 KB block at once took as
// long again: closing such a block froze the page, and deferring it to a later task only moved
// the freeze. So a long block is drawn in line groups (codegroups.js: only the groups in view
// are laid out), a module worker (hlworker.js, same origin: the page's CSP allows it, a blob:
// worker would not be) highlights its whole text and sends back tokens, and the page builds
// each group's highlighted nodes in the draw queue's 8 ms slices and swaps them in group by
// group. Meanwhile the groups show their plain text: Copy gives the same text throughout.
// Where a worker cannot start, the same tokens are made on the page's thread.
import hljs from '../../vendor/highlight.min.js';
import { bidiParts } from './bidimark.js';
import { frameDeadline } from '../chat/drawqueue.js';
import { tokensOf } from './hltokens.js';

/** From this length a block is drawn in groups and highlighted off the main thread. */
export const OFF_THREAD_MIN = 2000;

// What a span's class may be (highlight.js's scopes: "hljs-title function_", "language-xml").
const SAFE_CLASS = /^[\w -]{1,200}$/;

let worker = null; // null: not started yet; false: cannot run here
let nextId = 1;
const jobs = new Map(); // id -> job: sent, not answered
const building = []; // answered, being built into nodes
let frame = 0;
const classes = new Map(); // a block's class -> the class highlightElement gives it

function startWorker() {
  if (worker !== null) return worker;
  try {
    worker = new Worker(new URL('./hlworker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', answered);
    worker.addEventListener('error', cannotRun);
    worker.addEventListener('messageerror', cannotRun);
  } catch {
    worker = false; // no Worker here, or it refused the script at once
    document.documentElement.dataset.highlighter = 'main';
  }
  return worker;
}

/**
 * Highlights the block `pre` (drawn in groups of `text`'s lines, still plain) later: in the
 * worker, or where none runs, from tokens made here.
 */
export function highlightGroups(pre, lang, text) {
  // Their <code>s, which stay while Wrap moves them to fresh groups (codewrap.js).
  const codes = [...pre.children].map((group) => group.querySelector('code'));
  const job = { pre, lang, text, codes, parts: codes.map((code) => code?.textContent ?? '') };
  pre.dataset.hlPending = ''; // removed once every group is highlighted (the tests wait on it)
  if (startWorker()) {
    const id = nextId;
    nextId += 1;
    jobs.set(id, job);
    worker.postMessage({ id, lang, text });
  } else buildLater(job, tokensHere(job));
}

function tokensHere({ lang, text }) {
  try {
    return tokensOf(hljs.highlight(text, { language: lang, ignoreIllegals: true }).value);
  } catch {
    return null;
  }
}

// The worker failed to start (module workers unsupported, refused): the blocks sent to it are
// highlighted here, and so is every later one.
function cannotRun(event) {
  event.preventDefault?.();
  if (worker) worker.terminate();
  worker = false;
  document.documentElement.dataset.highlighter = 'main';
  const waiting = [...jobs.values()];
  jobs.clear();
  for (const job of waiting) buildLater(job, tokensHere(job));
}

function answered({ data }) {
  document.documentElement.dataset.highlighter = 'worker';
  const job = jobs.get(data?.id);
  if (!job) return;
  jobs.delete(data.id);
  buildLater(job, Array.isArray(data.tokens) ? data.tokens : null);
}

function buildLater(job, tokens) {
  if (!tokens) {
    delete job.pre.dataset.hlPending; // highlight.js failed on it: it stays plain
    return;
  }
  Object.assign(job, { tokens, at: 0, g: -1, classes: [] });
  nextGroup(job);
  building.push(job);
  if (!frame) frame = requestAnimationFrame(buildSome);
}

function buildSome() {
  frame = 0;
  const until = frameDeadline();
  while (building.length && performance.now() < until) {
    if (build(building[0], until)) building.shift();
  }
  if (building.length) frame = requestAnimationFrame(buildSome);
}

// Builds nodes from the tokens until `until`; true when all are built and swapped in. Text goes
// in as text nodes (a bidi control in its marked span, as markBidi draws it); spans get a
// checked class. At a group's end the open spans are closed and opened again in the next.
function build(job, until) {
  const { tokens } = job;
  for (; job.at < tokens.length; job.at += 1) {
    if (job.at % 128 === 0 && performance.now() >= until) return false;
    const token = tokens[job.at];
    if (typeof token === 'string') addText(job, token);
    else if (token === 0) {
      if (job.open.length > 1) {
        job.open.pop();
        job.classes.pop();
      }
    } else if (Array.isArray(token)) job.classes.push(openSpan(job, String(token[0])));
  }
  swapGroup(job);
  delete job.pre.dataset.hlPending;
  return true;
}

function addText(job, text) {
  let rest = text;
  while (rest.length > job.left && job.g < job.parts.length - 1) {
    if (job.left) job.open.at(-1).append(...bidiParts(rest.slice(0, job.left)));
    rest = rest.slice(job.left + 1); // the line end between two groups is theirs, not text
    swapGroup(job);
    nextGroup(job);
  }
  if (rest) job.open.at(-1).append(...bidiParts(rest));
  job.left -= rest.length;
}

function openSpan(job, cls) {
  const span = document.createElement('span');
  if (SAFE_CLASS.test(cls)) span.className = cls;
  job.open.at(-1).append(span);
  job.open.push(span);
  return cls;
}

function nextGroup(job) {
  job.g += 1;
  job.left = job.parts[job.g].length;
  job.root = document.createDocumentFragment();
  job.open = [job.root];
  for (const cls of job.classes) openSpan(job, cls);
}

// Swaps the group just built in, unless it was redrawn since (its text is not the same).
function swapGroup({ codes, parts, g, root }) {
  const code = codes[g];
  if (!code || code.classList.contains('hljs') || code.textContent !== parts[g]) return;
  const cls = highlightedClass(code.className);
  code.replaceChildren(root);
  code.className = cls;
  code.dataset.highlighted = 'yes';
}

// The class highlightElement gives a block: "hljs" and its language's main name
// ("language-js hljs language-javascript"), learnt from an empty block once per class.
function highlightedClass(cls) {
  if (!classes.has(cls)) {
    const probe = document.createElement('code');
    probe.className = cls;
    hljs.highlightElement(probe);
    classes.set(cls, probe.className);
  }
  return classes.get(cls);
}
