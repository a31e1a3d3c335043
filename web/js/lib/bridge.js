// The only file that touches window.pywebview. In the desktop app pywebview injects
// window.pywebview.api (the popup's guarded bridge) and fires "pywebviewready"; the test harness
// injects an object of the same shape. Python pushes events the other way by calling
// window.metona.dispatch(batch, seq) with run_js, one batch per call.
//
// The per-launch secret: the app hands it to this page (and only this page: it checks the
// window's URL first) through window.metona.key(secret). It stays in this closure and goes with
// every call; a call without it is refused by the app. Nothing is sent before it arrives.
//
// Lost batches: every batch carries a sequence number and dispatch answers with it. The app
// counts any other answer as lost and sends the next batch (or an empty one) with a later
// number; a gap here makes the page resynchronise from Core's snapshots (resync below).
import { store } from './store.js';

let resolveApi;
const apiReady = new Promise((resolve) => {
  resolveApi = resolve;
});
let secret = null;
let resolveKey;
const keyReady = new Promise((resolve) => {
  resolveKey = resolve;
});
const ready = Promise.all([apiReady, keyReady]).then(([api]) => api);

// pywebview may create window.pywebview.api before it has filled in the methods, so the API
// counts as ready only once a known command is there (or when pywebviewready fires).
function apiIfPresent() {
  const api = window.pywebview && window.pywebview.api;
  return api && typeof api.get_settings === 'function' ? api : null;
}

function checkReady() {
  const api = apiIfPresent();
  if (api) resolveApi(api);
}

window.addEventListener('pywebviewready', checkReady);
checkReady();

/** The app hands over the secret once per page load; the first one wins. */
function acceptKey(value) {
  if (secret === null && typeof value === 'string' && value.length >= 16) {
    secret = value;
    resolveKey();
  }
  return secret !== null && secret === value;
}

/** A refused command: ``code`` is one of ``errors.ERROR_CODES`` (or the page's own
 * ``unsupported``/``bridge``), ``details`` is set for ``invalid_settings``. */
export class BridgeError extends Error {
  constructor(code, message, details = null) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** Call a Bridge command with one payload object; resolves with its data or throws. */
export async function call(method, payload = {}) {
  const api = await ready;
  const fn = api[method];
  if (typeof fn !== 'function') throw new BridgeError('unsupported', `no command ${method}`);
  let envelope;
  try {
    envelope = await fn(payload, secret);
  } catch (err) {
    throw new BridgeError('bridge', String(err && err.message ? err.message : err));
  }
  if (!envelope || envelope.ok !== true) {
    throw new BridgeError(
      envelope?.code || 'error',
      envelope?.error || 'the command failed',
      envelope?.details || null,
    );
  }
  return envelope.data;
}

export function whenReady() {
  return ready;
}

// Events that arrive before the app has subscribed wait here (Python may push early).
let sink = null;
let early = [];
let lastSeq = null;
let resyncing = null;
let resyncAgain = false;

export function onEvents(handler) {
  sink = handler;
  if (early.length) {
    const batch = early;
    early = [];
    handler(batch);
  }
}

function dispatch(events, seq) {
  const numbered = Number.isInteger(seq);
  if (numbered && lastSeq !== null && seq !== lastSeq + 1) scheduleResync();
  const batch = Array.isArray(events) ? events : [events];
  const clean = batch.filter((e) => e && typeof e === 'object' && typeof e.type === 'string');
  try {
    if (clean.length) {
      if (sink) sink(clean);
      else early.push(...clean);
    }
  } catch (err) {
    console.error(err);
    scheduleResync();
    return -1; // not applied: the app sends a later number, and we resync
  }
  if (!numbered) return clean.length;
  lastSeq = seq;
  return seq;
}

/** For the event pump: an event that could not be applied leaves the view unsure. */
export function requestResync() {
  scheduleResync();
}

function scheduleResync() {
  if (!sink) return; // still booting: boot() reads the snapshots itself
  if (resyncing) {
    resyncAgain = true;
    return;
  }
  resyncing = resync()
    .catch((err) => console.error('resync failed', err))
    .finally(() => {
      resyncing = null;
      if (resyncAgain) {
        resyncAgain = false;
        scheduleResync();
      }
    });
}

/** Rebuild what events would have told us, from Core's snapshots, as events of the same kinds. */
async function resync() {
  // Text streamed live may now miss a piece: when its message ends, the chat reloads from the
  // store (events.js does that for a message marked incomplete), where the whole text is.
  for (const live of store.live.values()) {
    if (!live.finished) live.complete = false;
  }
  const [status, pending, sessions] = await Promise.all([
    call('status'),
    call('pending_approvals'),
    call('list_sessions'),
  ]);
  const events = [];
  const waiting = new Set(pending.map((p) => p.call_id));
  for (const old of store.approvals) {
    if (!waiting.has(old.call_id)) {
      events.push({
        type: 'approval_resolved',
        session_id: old.session_id,
        call_id: old.call_id,
        decision: 'resync',
        by: 'resync',
      });
    }
  }
  for (const p of pending) events.push({ ...p, type: 'approval_needed' });
  for (const session of sessions) events.push({ type: 'session_updated', session, deleted: false });
  events.push({ type: 'state_changed', state: status.state, pending: status.pending });
  if (store.currentId)
    events.push({ type: 'ui_action', action: 'open_session', session_id: store.currentId });
  if (sink) sink(events);
}

// Frozen and non-writable: nothing on the page may swap the event entry point.
Object.defineProperty(window, 'metona', {
  value: Object.freeze({ dispatch, key: acceptKey }),
  writable: false,
  configurable: false,
});
