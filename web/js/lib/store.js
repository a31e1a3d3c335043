// Page state. One object, changed only by app.js and events.js; views read from it.
export const store = {
  settings: null,
  sessions: [],
  currentId: null,
  running: new Set(), // session ids with a turn in progress
  models: [],
  modelsError: null,
  server: null,
  workspace: '', // the folder a new chat works in (Core's status says; absolute)
  sessionWorkspace: new Map(), // session id -> the folder its tools work in (from its snapshot)
  // Text of every assistant message streamed since the page started, for every session, so a
  // chat opened mid-answer shows all of it (the store on disk is saved only once a second).
  live: new Map(), // message_id -> { session_id, content, thinking, complete }
  calls: new Map(), // call_id -> tool call record (the card's state)
  // call_id -> {done, total, message} of a running call (not part of its record)
  progress: new Map(),
  approvals: [], // approval_needed events, oldest first
  endedTurns: new Set(), // turn ids whose turn_finished / turn_failed was applied
  turnEpoch: new Map(), // session id -> count of turn start/end events (to spot stale snapshots)
};

/** Count a turn event for a session; open() compares counts to know if a snapshot is stale. */
export function bumpEpoch(sessionId) {
  store.turnEpoch.set(sessionId, (store.turnEpoch.get(sessionId) || 0) + 1);
}

const RANK = { pending: 0, running: 1, success: 2, error: 2, cancelled: 2 };
// What changes as a call runs (tool_call_update's fields); the rest is fixed at its start.
const STATE = ['status', 'result', 'duration_ms', 'undoable', 'decision', 'decided_by'];

/** Merge what we know about a call: a record (snapshot or tool_call event) or the changed
 * fields of a tool_call_update, all under the record's field names (tray_app/base/messages.py).
 * A later status never goes back to an earlier one, nor does the state that came with it. */
export function mergeCall(update) {
  const id = update.call_id;
  const old = store.calls.get(id);
  const incoming = { ...update };
  for (const key of Object.keys(incoming)) {
    if (incoming[key] === undefined) delete incoming[key];
  }
  if (!old) {
    if (RANK[incoming.status] === 2) delete incoming.progress;
    store.calls.set(id, incoming);
    return incoming;
  }
  if (RANK[incoming.status] < RANK[old.status]) {
    for (const key of STATE) delete incoming[key];
  }
  const merged = { ...old, ...incoming };
  if (RANK[merged.status] === 2) delete merged.progress; // live only: finished, it is the record
  store.calls.set(id, merged);
  return merged;
}

export function currentSession() {
  return store.sessions.find((s) => s.id === store.currentId) || null;
}

export function modelInfo(name) {
  return store.models.find((m) => m.name === name) || null;
}

export function isAwaiting(callId) {
  return store.approvals.some((a) => a.call_id === callId);
}

/**
 * Drop what the page keeps for a chat that is no longer on screen and not answering (its
 * streamed text, tool call records and their progress, its turn counter): reopening it reads
 * them from Core again, and memory stays bounded by the chats in use, not by every chat since
 * the page started.
 */
export function forgetSession(sessionId) {
  const messages = new Set();
  for (const [id, live] of store.live) {
    if (live.session_id === sessionId) {
      messages.add(id);
      store.live.delete(id);
    }
  }
  for (const [id, record] of store.calls) {
    if (record.session_id === sessionId || messages.has(record.message_id)) {
      store.calls.delete(id);
      store.progress.delete(id);
    }
  }
  store.sessionWorkspace.delete(sessionId);
  store.turnEpoch.delete(sessionId); // no turn runs: a later open counts from zero
}
