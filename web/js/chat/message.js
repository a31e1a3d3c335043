// One message in the log. User text goes in as textContent; assistant text and thinking go
// through the sanitizing, incremental Markdown renderer.
import { h, emit, copyText } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { tx } from '../lib/i18n.js';
import { count, duration, visibleText } from '../lib/format.js';
import { MarkdownStream } from '../markdown/mdstream.js';
import { frameDeadline, drawLater } from './drawqueue.js';
import { warmRenderer } from '../markdown/mdwarm.js';

warmRenderer();

function actionButton(iconName, key, onclick) {
  return h(
    'button',
    { class: 'act', type: 'button', i18nTitle: key, i18nLabel: key, onclick },
    icon(iconName),
  );
}

function flash(button) {
  button.classList.add('done');
  setTimeout(() => button.classList.remove('done'), 1200);
}

export class UserMessage {
  constructor(record) {
    this.record = record;
    this.el = h('article', {
      class: 'msg user',
      i18nLabel: 'msg.speaker_user',
      dataset: { messageId: record.id || '' },
    });
    this.render();
  }

  render() {
    const { content, images = [] } = this.record;
    const bubble = h('div', { class: 'bubble', text: content });
    const pics = images.length
      ? h(
          'div',
          { class: 'msg-images' },
          images.map((b64) =>
            h('img', {
              src: `data:${sniff(b64)};base64,${b64}`,
              alt: '',
              class: 'thumb',
            }),
          ),
        )
      : null;
    const copy = actionButton('copy', 'common.copy', async () => {
      if (await copyText(content)) flash(copy);
    });
    this.editBtn = actionButton('edit', 'msg.edit', () => this.startEdit());
    this.editBtn.hidden = true;
    this.el.replaceChildren(
      pics || '',
      bubble,
      h('div', { class: 'msg-actions' }, copy, this.editBtn),
    );
  }

  setEditable(yes) {
    if (this.editBtn) this.editBtn.hidden = !yes;
  }

  startEdit() {
    const area = h('textarea', { class: 'input edit-area', rows: 3, i18nLabel: 'msg.edit' });
    area.value = this.record.content;
    const save = h('button', { class: 'btn small primary', type: 'button', i18n: 'msg.save_send' });
    const cancel = h('button', { class: 'btn small', type: 'button', i18n: 'common.cancel' });
    const done = () => this.render();
    save.addEventListener('click', () => {
      const text = area.value.trim();
      if (text) emit(this.el, 'metona:edit-last', { text });
    });
    cancel.addEventListener('click', done);
    area.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        done();
      } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        save.click();
      }
    });
    this.el.replaceChildren(area, h('div', { class: 'edit-actions' }, cancel, save));
    area.focus();
  }
}

// Images arrive as bare base64; the first bytes tell the type (only these four are allowed).
function sniff(b64) {
  if (b64.startsWith('iVBOR')) return 'image/png';
  if (b64.startsWith('/9j/')) return 'image/jpeg';
  if (b64.startsWith('R0lG')) return 'image/gif';
  if (b64.startsWith('UklG')) return 'image/webp';
  return 'image/png';
}

export class AssistantMessage {
  constructor(record) {
    this.record = record;
    this.thinkBody = h('div', { class: 'md think-md' });
    this.thinkLabel = h('span', { i18n: 'msg.thinking' });
    this.thinking = h(
      'details',
      { class: 'thinking', hidden: true },
      h('summary', {}, icon('think'), this.thinkLabel),
      this.thinkBody,
    );
    this.body = h('div', { class: 'md content' });
    this.calls = h('div', { class: 'calls' });
    this.foot = h('footer', { class: 'msg-foot' });
    this.el = h(
      'article',
      {
        class: 'msg assistant',
        i18nLabel: 'msg.speaker_assistant',
        dataset: { messageId: record.id },
      },
      this.thinking,
      this.body,
      this.calls,
      this.foot,
    );
    this.md = new MarkdownStream(this.body);
    this.thinkMd = new MarkdownStream(this.thinkBody);
    this.shown = { content: '', thinking: '' };
    if (record.streaming) {
      this.el.classList.add('streaming');
      this.el.setAttribute('aria-busy', 'true'); // not read until it is complete
      this.setText(record.content || '', record.thinking || '');
    } else {
      // A finished message (from a snapshot) is rendered in one pass, not as a stream.
      this.shown = { content: record.content || '', thinking: record.thinking || '' };
      this.thinking.hidden = !this.shown.thinking;
      this.finish(record);
    }
  }

  /** Apply the text so far; only ever grows (a shorter text is an older copy). */
  setText(content, thinking) {
    if (thinking && thinking.length > this.shown.thinking.length) {
      this.shown.thinking = thinking;
      this.thinking.hidden = false;
      if (this.el.classList.contains('streaming') && !this.shown.content && !this.thinking.open) {
        // Show the thinking while it streams, fold it when the answer starts.
        this.thinking.open = true;
        this.autoOpened = true;
      }
    }
    if (content && content.length > this.shown.content.length) {
      this.shown.content = content;
      if (this.autoOpened) {
        this.thinking.open = false;
        this.autoOpened = false;
      }
    }
    this.draw();
  }

  /** The final texts are not what streamed (reasoning recognised at the end, a call taken out
   * of the text): show these instead, whether shorter or not. */
  replaceText(content, thinking) {
    this.shown = { content, thinking };
    this.thinking.hidden = !thinking;
    this.draw();
  }

  // Draws the text so far; what a burst brought beyond the renderer's budget is drawn over the
  // next frames (never one long task), and the final pass waits until it is all drawn.
  draw() {
    const final = Boolean(this.finalWanted);
    const until = frameDeadline();
    const more =
      this.md.setText(this.shown.content, { final, until }) |
      this.thinkMd.setText(this.shown.thinking, { final, until });
    // Busy (not read yet) until the whole text is drawn, not only received.
    if (more) {
      this.el.setAttribute('aria-busy', 'true');
      drawLater(this);
    } else if (final) this.el.removeAttribute('aria-busy');
  }

  finish(record) {
    Object.assign(this.record, record, { streaming: false });
    this.el.classList.remove('streaming');
    this.finalWanted = true;
    this.draw();
    tx(this.thinkLabel, 'msg.thought');
    if (this.autoOpened) this.thinking.open = false;
    this.el.classList.toggle('stopped', Boolean(this.record.stopped));
    this.renderFoot();
  }

  setRetry(yes) {
    this.retry = yes;
    this.renderFoot();
  }

  /** A later round of the same answer follows (after tool calls): the stats move to it. */
  continueWith(next) {
    this.continued = true;
    next.prior = this;
    this.renderFoot();
  }

  /** The turn failed here: its notice says why and offers Retry, so no "Stopped" badge. */
  markFailed() {
    this.failed = true;
    this.renderFoot();
  }

  /** Token and time totals of the whole answer: this round and the rounds before it. */
  answerStats() {
    const own = this.record.stats || {};
    const before = this.prior ? this.prior.answerStats() : {};
    const add = (a, b) => (a || b ? (a || 0) + (b || 0) : undefined);
    return {
      completion_tokens: add(before.completion_tokens, own.completion_tokens),
      total_ms: add(before.total_ms, own.total_ms ?? own.duration_ms),
      eval_ms: add(before.eval_ms, own.eval_ms),
    };
  }

  renderFoot() {
    if (this.record.streaming) return;
    const r = this.record;
    const stats = this.continued ? {} : this.answerStats();
    const bits = [];
    if (r.model && !this.continued)
      bits.push(h('span', { class: 'badge model-badge', text: r.model }));
    if (r.stopped && !r.error && !this.failed)
      bits.push(h('span', { class: 'badge warn', i18n: 'msg.stopped' }));
    const tokens = stats.completion_tokens;
    if (tokens)
      bits.push(
        h('span', { class: 'stat', i18n: ['msg.tokens', { n: tokens, count: count(tokens) }] }),
      );
    const ms = stats.total_ms;
    if (ms) bits.push(h('span', { class: 'stat', text: duration(ms) }));
    if (tokens && stats.eval_ms) {
      bits.push(
        h('span', {
          class: 'stat',
          i18n: ['msg.speed', { v: (tokens / (stats.eval_ms / 1000)).toFixed(1) }],
        }),
      );
    }
    const actions = h('span', { class: 'msg-actions' });
    if (this.shown.content) {
      const copy = actionButton('copy', 'common.copy', async () => {
        if (await copyText(this.shown.content)) flash(copy);
      });
      actions.append(copy);
    }
    if (this.retry && !this.failed)
      actions.append(actionButton('retry', 'msg.retry', () => emit(this.el, 'metona:retry')));
    this.foot.replaceChildren(...bits, actions);
    this.foot.hidden = !bits.length && !actions.childNodes.length;
    // Nothing to say but Copy (an earlier round of an answer): no row of its own (chat.css).
    this.foot.classList.toggle('bare', !bits.length);
  }
}

/** A notice (tools dropped, round limit) or a failure, with Retry for failures. */
export function noticeView({
  level = 'info',
  titleKey,
  titleArgs,
  detail,
  retry,
  exportId,
  quiet = false,
}) {
  return h(
    'div',
    {
      class: `notice ${level}${quiet ? ' quiet' : ''}`,
      role: level === 'error' ? 'alert' : 'note',
    },
    quiet ? null : icon(level === 'info' ? 'spark' : 'alert'),
    h(
      'div',
      { class: 'notice-text' },
      titleKey ? h(quiet ? 'span' : 'strong', { i18n: [titleKey, titleArgs] }) : null,
      detail ? h('div', { class: 'notice-detail' }, codeSpans(detail)) : null,
    ),
    retry
      ? h(
          'button',
          {
            class: 'btn small',
            type: 'button',
            icon: 'retry',
            onclick: (e) => emit(e.currentTarget, 'metona:retry'),
          },
          h('span', { i18n: 'msg.retry' }),
        )
      : null,
    exportId
      ? h(
          'button',
          {
            class: 'btn small notice-export',
            type: 'button',
            icon: 'download',
            onclick: (e) =>
              emit(e.currentTarget, 'metona:export', { sessionId: exportId, format: 'markdown' }),
          },
          h('span', { i18n: 'notice.export' }),
        )
      : null,
  );
}

/** Where a long chat's oldest messages were summarised to fit the model's context: one quiet
 * line that opens to the summary the model is sent instead (plain text: it is the model's). */
export function summaryMarker({ count: covered, summary }) {
  return h(
    'details',
    { class: 'summary-marker' },
    h('summary', { i18n: ['chat.summary_marker', { count: covered ?? 0 }] }),
    h('div', { class: 'summary-text', text: visibleText(String(summary ?? '')) }),
  );
}

/** Plain text whose `backtick` spans show as code (error texts name commands that way). */
export function codeSpans(text) {
  const parts = String(text).split(/`([^`\n]+)`/);
  return parts
    .map((part, i) => (i % 2 ? h('code', { text: part }) : part))
    .filter((part) => part !== '');
}
