// The conversation of the chat on screen: messages in order, tool cards under the assistant
// message that asked for them, notices and failures. Keeps the view pinned to the bottom
// while new text arrives unless the user scrolled up to read (logfollow.js decides which).
import { h, emit } from '../lib/dom.js';
import { LogFollow } from './logfollow.js';
import { UserMessage, AssistantMessage, noticeView, summaryMarker } from './message.js';
import { ToolCard } from './toolcard.js';
import { store, mergeCall, isAwaiting } from '../lib/store.js';
import { announceAnswer } from './announce.js';
import { turnSummaryView } from './turnsummary.js';

export class ChatLog {
  constructor(scroller, container, empty) {
    this.scroller = scroller;
    this.container = container;
    this.empty = empty;
    this.views = new Map(); // message id -> view
    this.cards = new Map(); // call id -> ToolCard
    this.turnOf = new Map(); // message id -> its turn's id
    this.summaries = new Map(); // turn id -> its summary card on screen
    this.turnReports = new Map(); // turn id -> what its last "Undo this turn" did
    this.turnKept = new Set(); // journal entry ids the user chose to keep as they are now
    this.undoTurn = null; // (turnId, forceIds) => Promise<report>: Core.undo_turn (app.js)
    this.onUndoFailed = null;
    // Links in messages never navigate the popup: they go to the system browser.
    container.addEventListener('click', (event) => {
      const link = event.target.closest('a');
      if (!link || !container.contains(link)) return;
      event.preventDefault();
      const href = link.getAttribute('href');
      if (href) emit(container, 'metona:open-link', { url: href });
    });
    // Following the output, or staying where the user scrolled to read.
    this.follow = new LogFollow(scroller, container, document.getElementById('prompt'));
    // A card the user opened or closed stays where it was, under the pointer: the log scrolls
    // by what moved it, and stops following when its end is now out of view (reading).
    container.addEventListener('metona:card-toggled', (event) => {
      const moved = event.target.getBoundingClientRect().top - event.detail.top;
      if (moved) scroller.scrollTop += moved;
      if (!this.follow.atEnd()) this.follow.release();
    });
    this.olderSeen = new IntersectionObserver(
      (entries) => {
        if (entries[entries.length - 1].isIntersecting) this.loadOlder();
      },
      { root: scroller, rootMargin: '600px 0px 0px 0px' },
    );
  }

  /**
   * Render a chat from Core.get_session (merged with what streamed live). The snapshot holds
   * its last messages; `more_before` says older ones exist: they load as the user scrolls up.
   */
  show(snapshot) {
    this.container.replaceChildren();
    this.views.clear();
    this.cards.clear();
    this.summaries.clear();
    this.setOlder(snapshot);
    this.renderInto(this.container, snapshot);
    this.updateEmpty();
    this.follow.follow();
  }

  /** A page of older messages (Core.get_messages), put above the ones on screen. */
  prepend(page) {
    const views = this.views;
    this.views = new Map(); // older first, so "the last answer" stays the newest one
    const fragment = document.createDocumentFragment();
    this.renderInto(fragment, page);
    const older = [...this.views.values()].pop();
    const firstEl = this.olderRow
      ? this.olderRow.nextElementSibling
      : this.container.firstElementChild;
    const first = views.get(firstEl?.dataset?.messageId);
    if (older instanceof AssistantMessage && first instanceof AssistantMessage)
      older.continueWith(first);
    for (const [id, view] of views) this.views.set(id, view);
    // Keep what the user reads where it is (a no-op where the engine anchored it already).
    const before = firstEl ? firstEl.getBoundingClientRect().top : 0;
    if (this.olderRow) this.olderRow.after(fragment);
    else this.container.prepend(fragment);
    if (firstEl) this.scroller.scrollTop += firstEl.getBoundingClientRect().top - before;
    this.setOlder(page);
  }

  renderInto(parent, snapshot) {
    const callsByMessage = new Map();
    for (const raw of snapshot.tool_calls || []) {
      const record = mergeCall(raw);
      if (!callsByMessage.has(record.message_id)) callsByMessage.set(record.message_id, []);
      callsByMessage.get(record.message_id).push(record);
    }
    for (const message of snapshot.messages || []) {
      if (message.role === 'user') {
        this.addView(message.id, new UserMessage(message), parent);
      } else if (message.role === 'assistant') {
        // The snapshot may be older than events already applied: what streamed live wins.
        const live = store.live.get(message.id);
        const streaming =
          Boolean(message.stats && message.stats.streaming) &&
          store.running.has(message.session_id) &&
          !live?.finished;
        const view = new AssistantMessage({
          ...message,
          ...(live?.finished ? { stats: live.stats, stopped: live.stopped } : {}),
          content: longer(message.content, live?.content),
          thinking: longer(message.thinking, live?.thinking),
          streaming,
        });
        this.addView(message.id, view, parent);
        const calls = (callsByMessage.get(message.id) || []).sort(
          (a, b) => a.created_at - b.created_at,
        );
        for (const call of calls) this.addCard(call, view);
        if (message.error)
          parent.append(
            noticeView({ level: 'error', titleKey: 'error.title', detail: message.error }),
          );
      } else if (message.role === 'system' && message.stats?.summary) {
        parent.append(summaryMarker({ count: message.stats.covered, summary: message.content }));
      }
    }
    // Every turn shown that has ended gets its summary; the one still running gets it at its end.
    const messages = snapshot.messages || [];
    const running = messages.length && store.running.has(messages[messages.length - 1].session_id);
    const turns = [...new Set(messages.map((m) => m.turn_id).filter(Boolean))];
    if (running && !store.endedTurns.has(turns[turns.length - 1])) turns.pop();
    for (const turnId of turns) this.summarize(turnId);
  }

  /** The turn's views (its rounds) and its calls, oldest first. */
  turnParts(turnId) {
    const views = [...this.views.entries()]
      .filter(([id]) => this.turnOf.get(id) === turnId)
      .map(([, v]) => v);
    const ids = new Set(views.map((v) => v.record.id));
    const records = [...this.cards.values()]
      .map((c) => c.record)
      .filter((r) => ids.has(r.message_id))
      .sort((a, b) => a.created_at - b.created_at);
    return { views, records };
  }

  /** Put (or refresh) the ended turn's summary card at the end of its last answer. */
  summarize(turnId) {
    const { views, records } = this.turnParts(turnId);
    const last = views.filter((v) => v instanceof AssistantMessage).pop();
    const view = turnSummaryView(turnId, records, {
      open: (callId) => this.openCard(callId),
      undo: (force) => this.undoWholeTurn(turnId, force),
      report: this.turnReports.get(turnId) || null,
      kept: this.turnKept,
      keep: (entryId) => {
        this.turnKept.add(entryId);
        this.summarize(turnId);
        this.focusReport(turnId);
      },
    });
    const old = this.summaries.get(turnId);
    if (!view || !last) {
      old?.remove();
      this.summaries.delete(turnId);
      return;
    }
    // Redrawn while the user is in it (an undo's events arrive after its report): the focus
    // stays on the same control.
    const focused = old?.contains(document.activeElement)
      ? document.activeElement.closest('[data-focus-key]')
      : null;
    if (old?.isConnected) old.replaceWith(view);
    else last.el.insertBefore(view, last.foot);
    this.summaries.set(turnId, view);
    if (focused)
      view.querySelector(`[data-focus-key="${CSS.escape(focused.dataset.focusKey)}"]`)?.focus();
  }

  async undoWholeTurn(turnId, force) {
    if (!this.undoTurn) return;
    let report;
    try {
      report = await this.undoTurn(turnId, force);
    } catch (err) {
      this.onUndoFailed?.(err);
      return;
    }
    this.turnReports.set(turnId, report);
    this.summarize(turnId);
    this.focusReport(turnId);
  }

  focusReport(turnId) {
    this.summaries.get(turnId)?.querySelector('.hist-report')?.focus();
  }

  /** A summary row opens its call's card (the diff) and moves the focus there. */
  openCard(callId) {
    const card = this.cards.get(callId);
    if (!card) return;
    card.expanded = true;
    card.update(card.record);
    this.follow.release();
    card.el.scrollIntoView({ block: 'nearest' });
    card.el.querySelector('.tc-toggle')?.focus();
  }

  /** The turn ended (turn_finished / turn_failed): its summary, if it changed files. */
  turnEnded(turnId) {
    this.summarize(turnId);
  }

  // The "earlier messages" row at the top: loads the next page when it comes near the view
  // (or is pressed: keyboard users).
  setOlder(page) {
    const oldest = page.messages?.[0]?.id;
    this.oldest = oldest || null;
    if (!page.more_before || !oldest) {
      this.olderRow?.remove();
      this.olderRow = null;
      return;
    }
    if (!this.olderRow) {
      this.olderRow = h(
        'div',
        { class: 'log-older' },
        h('button', {
          class: 'btn small',
          type: 'button',
          i18n: 'chat.load_older',
          onclick: () => this.loadOlder(),
        }),
      );
    }
    this.container.prepend(this.olderRow);
    this.olderSeen.observe(this.olderRow);
  }

  loadOlder() {
    if (!this.oldest || this.loadingOlder) return;
    this.loadingOlder = true;
    this.olderSeen.disconnect();
    emit(this.container, 'metona:load-older', {
      before: this.oldest,
      done: () => {
        this.loadingOlder = false;
        if (this.olderRow) this.olderSeen.observe(this.olderRow);
      },
    });
  }

  addView(id, view, parent = this.container) {
    // Rounds of one answer sit next to each other (tool calls between them): one footer.
    const before = this.views.get(parent.lastElementChild?.dataset?.messageId);
    if (view instanceof AssistantMessage && before instanceof AssistantMessage)
      before.continueWith(view);
    this.views.set(id, view);
    if (view.record?.turn_id) this.turnOf.set(id, view.record.turn_id);
    parent.append(view.el);
    if (parent === this.container) this.updateEmpty();
  }

  addCard(record, view) {
    const card = new ToolCard({ ...record, awaiting: isAwaiting(record.call_id) });
    this.cards.set(record.call_id, card);
    view.calls.append(card.el);
  }

  updateEmpty() {
    this.empty.hidden = this.container.childElementCount > 0;
  }

  /** Around a batch of events. Nothing to do: the observers follow the output after layout. */
  begin() {}

  end() {}

  userSent(record) {
    const view = new UserMessage(record);
    this.addView(record.id, view);
    this.follow.follow();
    return view;
  }

  messageStarted(event) {
    if (this.views.has(event.message_id)) return;
    const view = new AssistantMessage({
      id: event.message_id,
      model: event.model,
      streaming: true,
      turn_id: event.turn_id,
    });
    this.addView(event.message_id, view);
  }

  refreshText(messageId) {
    const view = this.views.get(messageId);
    const live = store.live.get(messageId);
    if (view instanceof AssistantMessage && live) view.setText(live.content, live.thinking);
  }

  messageFinished(event) {
    const view = this.views.get(event.message_id);
    if (!(view instanceof AssistantMessage)) return;
    const live = store.live.get(event.message_id);
    const replaced = typeof event.content === 'string' || typeof event.thinking === 'string';
    if (live && replaced) view.replaceText(live.content, live.thinking);
    else this.refreshText(event.message_id);
    view.finish({ stopped: event.stopped, stats: event.stats || {} });
    announceAnswer(view.shown.content); // once, when complete
  }

  /** A tool call appeared or changed. */
  toolCall(record) {
    const card = this.cards.get(record.call_id);
    const data = { ...record, awaiting: isAwaiting(record.call_id) };
    if (card) {
      card.update(data);
      const turnId = this.turnOf.get(record.message_id);
      if (this.summaries.has(turnId)) this.summarize(turnId); // undone since: the rows say so
      return;
    }
    const view = this.views.get(record.message_id) || this.lastAssistant();
    if (view) this.addCard(data, view);
  }

  refreshCard(callId) {
    const record = store.calls.get(callId);
    if (record && this.cards.has(callId)) this.toolCall(record);
  }

  lastAssistant() {
    const list = [...this.views.values()].filter((v) => v instanceof AssistantMessage);
    return list[list.length - 1] || null;
  }

  notice(element) {
    // A failure right after an answer is that answer's end: one Retry (the notice's).
    const before = this.views.get(this.container.lastElementChild?.dataset?.messageId);
    const retries = element.querySelector('[data-i18n="msg.retry"]');
    if (retries && before instanceof AssistantMessage) before.markFailed();
    this.container.append(element);
    this.updateEmpty();
  }

  /** Edit on the last user message, Retry on the last answer, only while nothing runs. */
  setIdleActions(idle) {
    const views = [...this.views.values()];
    const lastUser = views.filter((v) => v instanceof UserMessage).pop();
    const lastAssistant = views.filter((v) => v instanceof AssistantMessage).pop();
    for (const view of views) {
      if (view instanceof UserMessage) view.setEditable(idle && view === lastUser);
      else if (view.retry !== (idle && view === lastAssistant))
        view.setRetry(idle && view === lastAssistant);
    }
  }

  /** Retry / edit: drop everything after the last user message at once (Core does the same). */
  dropAfterLastUser(text) {
    const users = [...this.views.values()].filter((v) => v instanceof UserMessage);
    const last = users[users.length - 1];
    if (!last) return;
    while (last.el.nextSibling) last.el.nextSibling.remove();
    for (const [id, view] of this.views) if (!view.el.isConnected) this.views.delete(id);
    for (const [id, card] of this.cards) if (!card.el.isConnected) this.cards.delete(id);
    if (text != null) {
      last.record.content = text;
      last.render();
    }
    last.setEditable(false);
  }

  clear() {
    this.setOlder({});
    this.container.replaceChildren();
    this.views.clear();
    this.cards.clear();
    this.summaries.clear();
    this.updateEmpty();
  }
}

function longer(a, b) {
  const x = a || '';
  const y = b || '';
  return y.length > x.length ? y : x;
}
