// The only file that touches window.pywebview. In the desktop app pywebview injects
// window.pywebview.api (the Python Bridge object) and fires "pywebviewready"; the test harness
// injects an object of the same shape. Python pushes events the other way by calling
// window.metona.dispatch([...events]) with run_js, one batch per call.

let resolveReady;
const ready = new Promise((resolve) => {
  resolveReady = resolve;
});

// pywebview may create window.pywebview.api before it has filled in the methods, so the API
// counts as ready only once a known command is there (or when pywebviewready fires).
function apiIfPresent() {
  const api = window.pywebview && window.pywebview.api;
  return api && typeof api.get_settings === 'function' ? api : null;
}

function checkReady() {
  const api = apiIfPresent();
  if (api) resolveReady(api);
}

window.addEventListener('pywebviewready', checkReady);
checkReady();

export class BridgeError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Call a Bridge command with one payload object; resolves with its data or throws. */
export async function call(method, payload = {}) {
  const api = await ready;
  const fn = api[method];
  if (typeof fn !== 'function') throw new BridgeError('unsupported', `no command ${method}`);
  let envelope;
  try {
    envelope = await fn(payload);
  } catch (err) {
    throw new BridgeError('bridge', String(err && err.message ? err.message : err));
  }
  if (!envelope || envelope.ok !== true) {
    throw new BridgeError(envelope?.code || 'error', envelope?.error || 'the command failed');
  }
  return envelope.data;
}

export function whenReady() {
  return ready;
}

// Events that arrive before the app has subscribed wait here (Python may push early).
let sink = null;
let early = [];

export function onEvents(handler) {
  sink = handler;
  if (early.length) {
    const batch = early;
    early = [];
    handler(batch);
  }
}

function dispatch(events) {
  const batch = Array.isArray(events) ? events : [events];
  const clean = batch.filter((e) => e && typeof e === 'object' && typeof e.type === 'string');
  if (!clean.length) return;
  if (sink) sink(clean);
  else early.push(...clean);
}

// Frozen and non-writable: nothing on the page may swap the event entry point.
Object.defineProperty(window, 'metona', {
  value: Object.freeze({ dispatch }),
  writable: false,
  configurable: false,
});
