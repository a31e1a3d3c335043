// Shown instead of the empty chat when Ollama cannot be reached or has no model: what to do,
// a retry, and pulling a model with a progress bar.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { hasText, tx } from '../lib/i18n.js';
import { bytes } from '../lib/format.js';
import { codeSpans } from './message.js';

const SUGGESTED = ['qwen3:4b', 'qwen3:8b', 'llama3.2:3b'];

export class Onboarding {
  constructor(el, { onRetry, onPull, onOpenLink, onSettings }) {
    this.el = el;
    this.actions = { onRetry, onPull, onOpenLink, onSettings };
    this.state = null;
  }

  get visible() {
    return !this.el.hidden;
  }

  hide() {
    this.state = null;
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  show(state, { endpoint = '', error = '', code = '' } = {}) {
    if (this.state === 'pulling' && state === 'no_models') return;
    this.state = state;
    this.el.hidden = false;
    if (state === 'unreachable') this.renderUnreachable(endpoint, error, code);
    else this.renderNoModels();
  }

  renderUnreachable(endpoint, error, code) {
    const cause = hasText(`onboard.cause.${code}`)
      ? `onboard.cause.${code}`
      : 'onboard.cause.provider_error';
    this.el.replaceChildren(
      h(
        'div',
        { class: 'ob-card' },
        h('div', { class: 'ob-icon warn' }, icon('alert')),
        h('h2', { i18n: 'onboard.unreachable_title' }),
        h('p', { i18n: ['onboard.unreachable_text', { endpoint }] }),
        h(
          'ol',
          { class: 'ob-steps' },
          // No space of our own after the label: English adds one in CSS, a full-width colon
          // (安装 Ollama：) already has its room.
          h(
            'li',
            {},
            h('span', { class: 'ob-step-label', i18n: 'onboard.step_install' }),
            h(
              'a',
              {
                href: 'https://ollama.com/download',
                class: 'ext-link',
                onclick: (e) => {
                  e.preventDefault();
                  this.actions.onOpenLink('https://ollama.com/download');
                },
              },
              h('span', { text: 'ollama.com/download' }),
              icon('external'),
            ),
          ),
          h(
            'li',
            {},
            h('span', { class: 'ob-step-label', i18n: 'onboard.step_start' }),
            h('code', { text: 'ollama serve' }),
          ),
          h('li', { i18n: 'onboard.step_retry' }),
        ),
        // What went wrong in the user's language (from the error's code), then the message as it
        // came (English, quoted) for a closer look or a bug report: folded, it repeats the steps.
        error
          ? h(
              'details',
              { class: 'ob-details' },
              h('summary', { i18n: 'onboard.details' }),
              h('p', { class: 'ob-cause', i18n: [cause, { endpoint }] }),
              h('blockquote', { class: 'ob-error', lang: 'en', dir: 'auto' }, codeSpans(error)),
            )
          : null,
        h(
          'div',
          { class: 'ob-actions' },
          h('button', {
            class: 'btn',
            type: 'button',
            i18n: 'onboard.open_settings',
            onclick: () => this.actions.onSettings(),
          }),
          h(
            'button',
            {
              class: 'btn primary',
              type: 'button',
              icon: 'retry',
              onclick: (e) => this.retry(e.currentTarget),
            },
            h('span', { i18n: 'common.retry' }),
          ),
        ),
      ),
    );
  }

  renderNoModels() {
    const input = h('input', {
      class: 'input',
      type: 'text',
      id: 'pull-name',
      value: SUGGESTED[0],
      spellcheck: 'false',
      autocomplete: 'off',
    });
    this.pullBtn = h('button', {
      class: 'btn primary',
      type: 'button',
      i18n: 'onboard.pull',
      onclick: () => this.pull(input.value.trim()),
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.pull(input.value.trim());
    });
    this.progress = h('div', { class: 'ob-progress', hidden: true });
    this.el.replaceChildren(
      h(
        'div',
        { class: 'ob-card' },
        h('div', { class: 'ob-icon' }, icon('spark')),
        h('h2', { i18n: 'onboard.no_models_title' }),
        h('p', { i18n: 'onboard.no_models_text' }),
        h('label', { for: 'pull-name', class: 'ob-label', i18n: 'onboard.model_name' }),
        h('div', { class: 'ob-pull' }, input, this.pullBtn),
        h(
          'div',
          { class: 'chips' },
          SUGGESTED.map((name) =>
            h('button', {
              class: 'chip',
              type: 'button',
              text: name,
              onclick: () => {
                input.value = name;
                input.focus();
              },
            }),
          ),
        ),
        this.progress,
        h(
          'div',
          { class: 'ob-actions' },
          h(
            'button',
            {
              class: 'btn',
              type: 'button',
              icon: 'retry',
              onclick: (e) => this.retry(e.currentTarget),
            },
            h('span', { i18n: 'common.retry' }),
          ),
        ),
      ),
    );
  }

  async retry(button) {
    button.disabled = true;
    try {
      await this.actions.onRetry();
    } finally {
      button.disabled = false;
    }
  }

  pull(name) {
    if (!name) return;
    this.state = 'pulling';
    this.pulling = name;
    this.pullBtn.disabled = true;
    this.bar = h('progress', { max: 100, value: 0, 'aria-labelledby': 'pull-status' });
    this.status = h('div', {
      class: 'ob-status',
      id: 'pull-status',
      i18n: ['onboard.pulling', { model: name }],
    });
    this.detail = h('div', { class: 'ob-detail' });
    this.progress.replaceChildren(this.status, this.bar, this.detail);
    this.progress.hidden = false;
    this.actions
      .onPull(name)
      .catch((err) => this.progressEvent({ model: name, done: true, error: err.message }));
  }

  /** A pull_progress event. */
  progressEvent(ev) {
    if (!this.bar || ev.model !== this.pulling) return;
    if (ev.error) {
      this.state = 'no_models';
      this.pullBtn.disabled = false;
      // A bar that will not move again is not shown; a name the server does not know is said
      // in words, any other failure with the server's own text under the headline.
      this.bar.hidden = true;
      const notFound = ev.error_code === 'model_not_found';
      tx(this.status, notFound ? 'onboard.pull_not_found' : 'onboard.pull_failed', {
        model: ev.model,
      });
      this.status.classList.add('ob-failed');
      this.detail.textContent = notFound ? '' : ev.error;
      this.detail.hidden = notFound;
      this.detail.classList.add('ob-error');
      return;
    }
    if (ev.total) {
      this.bar.max = ev.total;
      this.bar.value = ev.completed || 0;
      const pct = Math.floor(((ev.completed || 0) / ev.total) * 100);
      this.detail.textContent = `${pct}% · ${bytes(ev.completed || 0)} / ${bytes(ev.total)}`;
    } else {
      this.detail.textContent = ev.status || '';
    }
    if (ev.done) {
      this.bar.max = 1;
      this.bar.value = 1;
      tx(this.status, 'onboard.pulled', { model: ev.model });
      this.state = 'pulled';
    }
  }
}
