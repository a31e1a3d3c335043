// Applies Core events to the page. Python pushes batches whenever it likes; we queue them and
// apply everything once per animation frame, so a fast stream costs one render per frame.
// A timer backs up requestAnimationFrame, which stops while the popup is hidden.
import { store, mergeCall, bumpEpoch, forgetSession } from '../lib/store.js';
import { noticeView, summaryMarker } from './message.js';
import { hasText, t } from '../lib/i18n.js';

// Notice and failure codes are Literals in tray_app/base/events.py; each has its text in
// web/locales (tests/core/test_events_contract.py), so the page needs no list of its own.
// A code it has no text for (a newer Core) shows the message Core wrote.

// Failures the server caused: the page looks at the server again (onboarding card, header).
const SERVER_FAILURES = new Set(['provider_unavailable', 'no_models']);

export function createEventPump(ctx) {
  let queue = [];
  let scheduled = false;

  function flush() {
    if (!scheduled) return;
    // Cleared before applying: a push made while the batch applies schedules its own flush,
    // and a batch that throws cannot leave the flag set (which would stall every later one).
    scheduled = false;
    const batch = queue;
    queue = [];
    applyBatch(ctx, batch);
  }

  return function push(events) {
    queue.push(...events);
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(flush);
    setTimeout(flush, 250);
  };
}

// One event that throws (a bug, or a shape we did not expect) must not take the rest of the
// batch, the scroll position or later batches with it: it is logged, the others are applied,
// and the page resynchronises from Core's snapshots, as after a lost batch.
function applyBatch(ctx, batch) {
  const acc = { dirty: new Set(), sessionsChanged: false, approvalsChanged: false };
  let failed = 0;
  const guarded = (what, fn) => {
    try {
      fn();
    } catch (err) {
      failed += 1;
      console.error(`event ${what} failed`, err);
    }
  };
  ctx.chatlog.begin();
  try {
    for (const ev of batch) guarded(ev.type, () => applyEvent(ctx, ev, acc));
    for (const id of acc.dirty) guarded('refreshText', () => ctx.chatlog.refreshText(id));
    if (acc.approvalsChanged) guarded('approvalsChanged', () => ctx.approvalsChanged());
    if (acc.sessionsChanged) guarded('runningChanged', () => ctx.runningChanged());
  } finally {
    ctx.chatlog.end();
    if (failed && ctx.resync) ctx.resync();
  }
}

function applyEvent(ctx, ev, acc) {
  const { chatlog } = ctx;
  const { dirty } = acc;
  const here = ev.session_id && ev.session_id === store.currentId;
  switch (ev.type) {
    case 'turn_started':
      bumpEpoch(ev.session_id);
      if (!store.endedTurns.has(ev.turn_id)) store.running.add(ev.session_id);
      acc.sessionsChanged = true;
      break;
    case 'notice':
      if (here)
        chatlog.notice(
          ev.code === 'history_summarized' ? summaryMarker(ev.args || {}) : noticeFor(ev),
        );
      break;
    case 'message_started':
      store.live.set(ev.message_id, {
        session_id: ev.session_id,
        content: '',
        thinking: '',
        complete: true,
      });
      if (here) chatlog.messageStarted(ev);
      break;
    case 'thinking_delta':
    case 'content_delta': {
      let live = store.live.get(ev.message_id);
      if (!live) {
        live = { session_id: ev.session_id, content: '', thinking: '', complete: false };
        store.live.set(ev.message_id, live);
      }
      live[ev.type === 'content_delta' ? 'content' : 'thinking'] += ev.text;
      if (here) dirty.add(ev.message_id);
      break;
    }
    case 'message_finished': {
      const live = store.live.get(ev.message_id);
      if (live) Object.assign(live, { finished: true, stopped: ev.stopped, stats: ev.stats || {} });
      // The final texts differ from what streamed (a call taken out of the text, reasoning
      // recognised at the end): the message shows these.
      if (live && typeof ev.content === 'string') live.content = ev.content;
      if (live && typeof ev.thinking === 'string') live.thinking = ev.thinking;
      if (here) {
        dirty.delete(ev.message_id);
        // Streamed without its start, or its view went with a log a snapshot replaced: the
        // stored message is whole now, read the chat again.
        const shown = chatlog.views.has(ev.message_id);
        chatlog.messageFinished(ev);
        if (live?.complete === false || !shown) ctx.reloadSoon();
      }
      break;
    }
    case 'tool_call': {
      const record = mergeCall(ev.call); // the record as stored: snapshots send the same
      if (here) chatlog.toolCall(record);
      break;
    }
    case 'tool_call_update': {
      // The event's own fields are not the call's; progress is shown, never kept in the record.
      const { type, at, progress, ...changes } = ev;
      if (progress && ev.status === 'running') store.progress.set(ev.call_id, progress);
      else store.progress.delete(ev.call_id);
      const record = mergeCall(changes);
      if (here) chatlog.toolCall(record);
      break;
    }
    case 'approval_needed':
      if (!store.approvals.some((a) => a.call_id === ev.call_id)) store.approvals.push(ev);
      acc.approvalsChanged = true;
      if (here) chatlog.refreshCard(ev.call_id);
      break;
    case 'approval_resolved':
      store.approvals = store.approvals.filter((a) => a.call_id !== ev.call_id);
      acc.approvalsChanged = true;
      if (here) chatlog.refreshCard(ev.call_id);
      break;
    case 'turn_finished':
    case 'turn_failed':
      bumpEpoch(ev.session_id);
      store.endedTurns.add(ev.turn_id);
      store.running.delete(ev.session_id);
      acc.sessionsChanged = true;
      if (here && ev.type === 'turn_failed') chatlog.notice(failureFor(ev));
      if (here) chatlog.turnEnded(ev.turn_id);
      if (!here) forgetSession(ev.session_id); // reopening it reads the chat from Core
      // The server went away or has no model: the onboarding card and the header say so.
      if (ev.type === 'turn_failed' && SERVER_FAILURES.has(ev.code)) ctx.serverCheck?.();
      break;
    case 'session_updated':
      ctx.sessionUpdated(ev.session, ev.deleted);
      break;
    case 'models_updated':
      ctx.modelsUpdated(ev.models, ev.error);
      break;
    case 'settings_updated':
      ctx.settingsUpdated(ev.settings);
      break;
    case 'pull_progress':
      ctx.pullProgress(ev);
      break;
    case 'undo_applied':
      if (ev.call_id && store.calls.has(ev.call_id)) {
        mergeCall({ call_id: ev.call_id, undone: true });
        chatlog.refreshCard(ev.call_id);
      }
      ctx.undone(ev);
      break;
    case 'state_changed':
      ctx.stateChanged(ev);
      break;
    case 'mcp_status': // a tool server started, failed or listed new tools (events.McpStatus)
      ctx.mcpStatus?.(ev.servers);
      break;
    case 'ui_action': // from the tray menu or a notification click (events.UiAction)
      ctx.uiAction(ev);
      break;
    default:
      break;
  }
}

function noticeFor(ev) {
  const known = hasText(`notice.${ev.code}`);
  return noticeView({
    level: ev.level === 'warning' ? 'warning' : 'info',
    titleKey: known ? `notice.${ev.code}` : null,
    titleArgs: known && ev.args && Object.keys(ev.args).length ? ev.args : undefined,
    detail: known ? null : ev.message,
    // An unsaved chat lives only in memory: offer to keep it in a file.
    exportId: ev.code === 'history_not_saved' ? ev.session_id : null,
    // A fact under the answer ("no files were changed"), not an alarm.
    quiet: ev.code === 'nothing_changed',
  });
}

function failureFor(ev) {
  const key = hasText(`error.${ev.code}`) ? `error.${ev.code}` : 'error.title';
  // Core's sentence for a missing model is the headline again, in English: the page says
  // what to do instead, in its own language.
  const detail = ev.code === 'no_models' ? t('error.no_models_detail') : ev.message;
  return noticeView({ level: 'error', titleKey: key, detail, retry: ev.code !== 'no_models' });
}
