// What the user can do with chats, as calls to Core through the bridge. The page keeps a
// "draft" chat (no session yet) until the first message, so empty chats never pile up.
import { call } from '../lib/bridge.js';
import { store, currentSession, modelInfo, forgetSession } from '../lib/store.js';
import { toast } from '../lib/toast.js';
import { hasText, t, tx } from '../lib/i18n.js';
import { shownParams } from './results.js';
import { problemArgs } from './historywarn.js';
import { middlePath, visible } from '../lib/format.js';

// The codes of ``tray_app/base/errors.py`` ERROR_CODES (and the page's own), each with a
// ``command_error.<code>`` text in both locales; tests/web/test_static.py keeps them in step.
export const COMMAND_ERRORS = new Set([
  'error',
  'config_error',
  'provider_error',
  'provider_unavailable',
  'model_not_found',
  'capability',
  'server_busy',
  'stream_error',
  'sandbox_violation',
  'undo_unavailable',
  'undo_failed',
  'store_error',
  'export_failed',
  'invalid_request',
  'invalid_settings',
  'not_found',
  'busy',
  'unsupported',
  'timeout',
  'internal',
  'forbidden',
  'unavailable',
  'bridge',
]);

export function createActions(ui) {
  const draft = { model: '', workspace: null };
  let localIds = 0;

  /** A refused command: its code's sentence in the page's language, the app's detail after
   * (a coded detail, such as why an undo was not done, in the page's language too). */
  function fail(err) {
    // A store problem the app coded (a settings file that cannot be written): its own sentence.
    const problem =
      typeof err?.details?.problem_code === 'string'
        ? `store_problem.${err.details.problem_code}`
        : '';
    if (problem && hasText(problem)) {
      toast({
        key: problem,
        args: problemArgs(err.details.problem_params),
        level: 'error',
        ms: 8000,
      });
      return;
    }
    const code = err && err.code;
    const why = typeof err?.details?.code === 'string' ? `tool_error.${err.details.code}` : '';
    const detail =
      why && hasText(why)
        ? t(why, shownParams(err.details.params))
        : (err && err.message) || String(err);
    if (code && COMMAND_ERRORS.has(code))
      toast({ key: `command_error.${code}`, args: { detail }, level: 'error', ms: 6000 });
    else toast({ text: detail, level: 'error', ms: 6000 });
  }

  // No model chosen anywhere: Core takes the first installed one that can use tools, else the
  // first; the header says so too (and changes once a Retry finds the server and its models).
  function sessionModel() {
    const session = currentSession();
    const chosen =
      (session && session.model) || (session ? '' : draft.model) || store.settings?.default_model;
    if (chosen) return chosen;
    const withTools = store.models.find((m) => m.capabilities?.includes('tools'));
    return (withTools || store.models[0])?.name || '';
  }

  /** Title bar, model button, folder line, composer state for the chat on screen. */
  function refreshChrome() {
    const session = currentSession();
    if (session && session.title) {
      delete ui.title.dataset.i18n;
      ui.title.textContent = session.title;
    } else tx(ui.title, 'chat.untitled');
    const model = sessionModel();
    ui.picker.setCurrent(model);
    const info = modelInfo(model);
    ui.composer.setVision(Boolean(info && info.capabilities?.includes('vision')));
    // The folder the tools really work in, absolute: Core's answer (the sandbox's choice), not
    // a guess from the settings (the first allowed folder may be blocked, as root's home is).
    const folder =
      (session ? session.workspace || store.sessionWorkspace.get(session.id) : draft.workspace) ||
      store.workspace ||
      '';
    const shown = visible(folder);
    tx(ui.workspace, 'workspace.default', { path: middlePath(shown, 46) });
    ui.workspace.dataset.path = folder;
    ui.workspace.setAttribute('title', shown);
    runningChanged();
    ui.approvalsChanged();
  }

  function runningChanged() {
    // A chat that stopped answering while another one is on screen: forget its live state.
    const idle = new Set();
    for (const live of store.live.values()) {
      if (live.session_id !== store.currentId && !store.running.has(live.session_id))
        idle.add(live.session_id);
    }
    for (const id of idle) forgetSession(id);
    const running = Boolean(store.currentId && store.running.has(store.currentId));
    ui.composer.setRunning(running);
    ui.chatlog.setIdleActions(!running);
    ui.sidebar.render(store.sessions, store.currentId, store.running);
  }

  // Answers to get_session can arrive out of order (each bridge call runs on its own thread):
  // only the newest request may paint, or an older snapshot could bring back removed messages.
  let openSeq = 0;
  const PAGE = 40; // messages a chat opens with; older ones load as the user scrolls up

  async function open(sessionId) {
    if (ui.sidebar.isOverlay) ui.sidebar.close();
    const previous = store.currentId;
    if (previous && previous !== sessionId && !store.running.has(previous)) forgetSession(previous);
    store.currentId = sessionId;
    refreshChrome();
    const epoch = store.turnEpoch.get(sessionId) || 0;
    const seq = ++openSeq;
    try {
      const snapshot = await call('get_session', { session_id: sessionId, limit: PAGE });
      if (store.currentId !== sessionId || seq !== openSeq) return; // superseded meanwhile
      // Trust the snapshot's "running" only if no turn event arrived while we waited for it.
      if ((store.turnEpoch.get(sessionId) || 0) === epoch) {
        if (snapshot.running) store.running.add(sessionId);
        else store.running.delete(sessionId);
      }
      if (snapshot.workspace) store.sessionWorkspace.set(sessionId, snapshot.workspace);
      ui.chatlog.show(snapshot);
      refreshChrome();
      // A turn that started or ended while the snapshot was on its way was drawn on the old
      // log, which is gone now, and the snapshot may predate it: read the chat again.
      if ((store.turnEpoch.get(sessionId) || 0) !== epoch) await open(sessionId);
    } catch (err) {
      fail(err);
    }
  }

  /** The next page of older messages of the chat on screen (the log asks as it scrolls up). */
  async function loadOlder({ before, done }) {
    const id = store.currentId;
    try {
      const page = await call('get_messages', { session_id: id, before, limit: PAGE });
      if (store.currentId === id && ui.chatlog.oldest === before) ui.chatlog.prepend(page);
    } catch (err) {
      fail(err);
    } finally {
      done();
    }
  }

  function newChat() {
    const previous = store.currentId;
    if (previous && !store.running.has(previous)) forgetSession(previous);
    store.currentId = null;
    draft.model = store.settings?.default_model || '';
    draft.workspace = null;
    ui.chatlog.clear();
    refreshChrome();
    if (ui.sidebar.isOverlay) ui.sidebar.close();
    ui.composer.focus();
  }

  async function ensureSession() {
    if (store.currentId) return store.currentId;
    const session = await call('new_session', {
      model: draft.model || null,
      workspace: draft.workspace,
    });
    upsert(session);
    store.currentId = session.id;
    return session.id;
  }

  async function send(text, images) {
    let view = null;
    try {
      const id = await ensureSession();
      openSeq += 1; // a snapshot still on its way predates this message: it must not paint
      view = ui.chatlog.userSent({ id: `local_${++localIds}`, content: text, images });
      const started = await call('send_message', { session_id: id, text, images });
      markRunning(id, started.turn_id);
      refreshChrome();
      return true;
    } catch (err) {
      view?.el.remove();
      ui.chatlog.updateEmpty();
      fail(err);
      return false;
    }
  }

  async function rerun(method, payload) {
    const id = store.currentId;
    if (!id) return;
    openSeq += 1; // a snapshot still on its way predates the drop: it must not paint
    ui.chatlog.dropAfterLastUser(payload.text);
    try {
      const started = await call(method, { session_id: id, ...payload });
      markRunning(id, started.turn_id);
      refreshChrome();
    } catch (err) {
      fail(err);
    }
    await open(id);
  }

  // The turn may already be over (its events can beat the command's answer).
  function markRunning(sessionId, turnId) {
    if (!store.endedTurns.has(turnId)) store.running.add(sessionId);
  }

  async function stop() {
    try {
      await call('abort', { session_id: store.currentId });
    } catch (err) {
      fail(err);
    }
  }

  function upsert(session) {
    const list = store.sessions.filter((s) => s.id !== session.id);
    list.push(session);
    list.sort((a, b) => b.updated_at - a.updated_at);
    store.sessions = list;
  }

  function sessionUpdated(session, deleted) {
    if (deleted) {
      store.sessions = store.sessions.filter((s) => s.id !== session.id);
      if (store.currentId === session.id) newChat();
    } else upsert(session);
    if (!ui.searching()) ui.sidebar.render(store.sessions, store.currentId, store.running);
    if (session.id === store.currentId) refreshChrome();
  }

  async function setModel(name) {
    if (!store.currentId) {
      draft.model = name;
      refreshChrome();
      return;
    }
    try {
      upsert(await call('update_session', { session_id: store.currentId, model: name }));
      refreshChrome();
    } catch (err) {
      fail(err);
    }
  }

  async function setWorkspace(path) {
    if (!store.currentId) {
      draft.workspace = path || null;
      refreshChrome();
      return true;
    }
    try {
      upsert(
        await call('update_session', { session_id: store.currentId, workspace: path || null }),
      );
      refreshChrome();
      return true;
    } catch (err) {
      fail(err);
      return false;
    }
  }

  async function search(query) {
    try {
      const found = await call('list_sessions', { query: query || null });
      ui.sidebar.render(found, store.currentId, store.running, query || '');
    } catch (err) {
      fail(err);
    }
  }

  async function rename(id, title) {
    try {
      upsert(await call('update_session', { session_id: id, title }));
      ui.sidebar.render(store.sessions, store.currentId, store.running);
      refreshChrome();
    } catch (err) {
      fail(err);
    }
  }

  async function remove(id) {
    try {
      await call('delete_session', { session_id: id });
    } catch (err) {
      fail(err);
    }
  }

  /** Save a chat (also one that could not be saved to history) where the user picks. */
  async function exportChat(id, format = 'markdown') {
    try {
      const result = await call('export_session', { session_id: id, format });
      if (result && result.saved)
        toast({ key: 'toast.exported', args: { path: result.path }, ms: 6000 });
    } catch (err) {
      fail(err);
    } finally {
      ui.focusHome(); // the native save dialog closed, saved or cancelled
    }
  }

  async function decide(callId, approve, remember, rule = false) {
    try {
      await call('decide', { call_id: callId, approve, remember, rule });
    } catch (err) {
      if (err.code === 'not_found') {
        // answered elsewhere or timed out meanwhile
        store.approvals = store.approvals.filter((a) => a.call_id !== callId);
        ui.approvalsChanged();
        return;
      }
      ui.approval.release();
      fail(err);
    }
  }

  async function undo(callId) {
    try {
      await call(callId ? 'undo' : 'undo_last', callId ? { call_id: callId } : {});
    } catch (err) {
      fail(err);
    }
  }

  return {
    open,
    loadOlder,
    newChat,
    send,
    stop,
    setModel,
    setWorkspace,
    search,
    rename,
    remove,
    exportChat,
    decide,
    undo,
    retry: () => rerun('retry', {}),
    editLast: (text) => rerun('edit_last', { text }),
    sessionUpdated,
    refreshChrome,
    runningChanged,
    fail,
    draft,
  };
}
