// Long code blocks are highlighted off the main thread. highlight.js takes one task for a whole
// block (40-80 ms for 8-50 KB on a busy machine): closing such a block froze the page, and
// deferring it to a later task only moved the freeze. A module worker (hlworker.js, same origin:
// the page's CSP allows it, a blob: worker would not be) highlights it and sends back tokens;
// the block stays drawn as plain text meanwhile (Copy gives the same text throughout), and the
// highlighted nodes are built in the draw queue's 8 ms slices, then swapped in at once. The
// result is the DOM highlight.js's highlightElement makes. Where a worker cannot start, every
// block is highlighted here as before.
import hljs from '../vendor/highlight.min.js';
import { bidiParts, markBidi } from './bidimark.js';
import { frameDeadline } from './drawqueue.js';

/** Shorter blocks highlight in well under a millisecond: not worth a trip to the worker. */
export const OFF_THREAD_MIN = 2000;

// What a span's class may be (highlight.js's scopes: "hljs-title function_", "language-xml").
const SAFE_CLASS = /^[\w -]{1,200}$/;

let worker = null; // null: not started yet; false: cannot run here
let nextId = 1;
const jobs = new Map(); // id -> { code, text }: sent, not answered
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
    worker = false;
  }
  return worker;
}

/**
 * Highlights `code` (a block's <code>, still plain) later, off the main thread; false when no
 * worker can run here (the caller highlights it now).
 */
export function highlightLater(code, lang) {
  if (!startWorker()) return false;
  const id = nextId;
  nextId += 1;
  const text = code.textContent;
  jobs.set(id, { code, text });
  code.dataset.hlPending = ''; // removed when it is drawn highlighted (the tests wait on it)
  worker.postMessage({ id, lang, text });
  return true;
}

/** Highlights `code` here and now, as markdown.js did before the worker (bidi marks: the caller's). */
export function highlightNow(code) {
  if (code.classList.contains('hljs')) return;
  if (code.childElementCount) code.textContent = code.textContent; // highlight.js reads text only
  hljs.highlightElement(code);
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
  for (const { code } of waiting) {
    delete code.dataset.hlPending;
    highlightNow(code);
    markBidi(code);
  }
}

function answered({ data }) {
  document.documentElement.dataset.highlighter = 'worker';
  const job = jobs.get(data?.id);
  if (!job) return;
  jobs.delete(data.id);
  if (!Array.isArray(data.tokens)) {
    delete job.code.dataset.hlPending; // highlight.js failed on it: it stays plain
    return;
  }
  const root = document.createDocumentFragment();
  building.push({ ...job, tokens: data.tokens, at: 0, root, open: [root] });
  if (!frame) frame = requestAnimationFrame(buildSome);
}

function buildSome() {
  frame = 0;
  const until = frameDeadline();
  while (building.length && performance.now() < until) {
    if (build(building[0], until)) swapIn(building.shift());
  }
  if (building.length) frame = requestAnimationFrame(buildSome);
}

// Builds nodes from the tokens until `until`; true when all are built. Text goes in as text
// nodes (a bidi control in its marked span, as markBidi draws it), spans get a checked class.
function build(job, until) {
  const { tokens, open } = job;
  for (; job.at < tokens.length; job.at += 1) {
    if (job.at % 256 === 0 && performance.now() >= until) return false;
    const token = tokens[job.at];
    const top = open[open.length - 1];
    if (typeof token === 'string') top.append(...bidiParts(token));
    else if (token === 0) {
      if (open.length > 1) open.pop();
    } else if (Array.isArray(token)) {
      const span = document.createElement('span');
      const cls = String(token[0]);
      if (SAFE_CLASS.test(cls)) span.className = cls;
      top.append(span);
      open.push(span);
    }
  }
  return true;
}

function swapIn({ code, text, root }) {
  delete code.dataset.hlPending;
  // Redrawn or highlighted since it was sent: this answer is stale.
  if (code.classList.contains('hljs') || code.textContent !== text) return;
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
