// Whether the chat log follows new output, decided by what the user does, not by where the
// view happens to be. A wheel turned up, a finger moving down, an up key or the scroll bar
// dragged up stop the following at once; moving back down to the end (or End, or the "Jump to
// latest" button that shows while text arrives below) starts it again. Position alone cannot
// tell: a smooth scroll's first steps are still "near the bottom", and WebKit (no CSS scroll
// anchoring) clamps scrollTop when a message is redrawn whole, which looks like scrolling up.
//
// Following itself reads no layout in the per-frame path: a bottom anchor and observers, which
// run after the browser's own layout, scroll to the end.
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';

const END_SLACK = 8; // px from the end that count as "back at the end" after moving down
const INTENT_MS = 600; // a native key scroll goes on for a few frames after its key
const PAGE_OVERLAP = 48; // px of the old page kept in view by PageUp / PageDown

const UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);
const PAGE_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End']);

/** A control that uses the scroll keys itself (text fields, lists, menus). */
function ownsKeys(el) {
  return (
    el.isContentEditable ||
    /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) ||
    Boolean(el.closest('[role="listbox"], [role="menu"], [role="radiogroup"], [role="slider"]'))
  );
}

/** Whether an element between the target and the log would take a wheel turned up itself. */
function innerScrollsUp(target, scroller) {
  for (let el = target; el && el !== scroller; el = el.parentElement) {
    if (el.scrollTop > 0 && el.scrollHeight > el.clientHeight) {
      const overflow = getComputedStyle(el).overflowY;
      if (overflow === 'auto' || overflow === 'scroll') return true;
    }
  }
  return false;
}

export class LogFollow {
  /** `scroller`: the log that scrolls; `content`: what grows inside it; `prompt`: the message
   * box, from which PageUp / PageDown scroll the log (a chat's convention). */
  constructor(scroller, content, prompt = null) {
    this.scroller = scroller;
    this.prompt = prompt;
    this.lastTop = 0;
    this.upIntent = -Infinity;
    this.dragging = false;
    this.touchY = null;
    this.jump = h(
      'button',
      {
        class: 'btn small jump-latest',
        type: 'button',
        hidden: true,
        onclick: () => this.follow(),
      },
      icon('chevron'),
      h('span', { i18n: 'chat.jump_latest' }),
    );
    scroller.after(h('div', { class: 'log-jump' }, this.jump));
    this.following = true;

    scroller.addEventListener('wheel', (event) => this.wheel(event), { passive: true });
    scroller.addEventListener(
      'touchstart',
      (event) => {
        this.touchY = event.touches[0]?.clientY ?? null;
      },
      { passive: true },
    );
    scroller.addEventListener('touchmove', (event) => this.touch(event), { passive: true });
    // A press on the log itself (not on a message) is its scroll bar (or its padding).
    scroller.addEventListener(
      'pointerdown',
      (event) => {
        this.dragging = event.target === scroller;
      },
      { passive: true },
    );
    window.addEventListener(
      'pointerup',
      () => {
        this.dragging = false;
      },
      { passive: true },
    );
    document.addEventListener('keydown', (event) => this.key(event));
    scroller.addEventListener('scroll', () => this.scrolled(), { passive: true });

    this.anchor = h('div', { class: 'log-anchor', 'aria-hidden': 'true' });
    scroller.append(this.anchor);
    // The anchor left the view (new output, or the approval panel took room): follow it.
    new IntersectionObserver(
      (entries) => {
        if (!entries[entries.length - 1].isIntersecting && this.following) this.toEnd();
      },
      { root: scroller },
    ).observe(this.anchor);
    // The log resized, or its messages grew: the anchor's observer sees only a change of
    // state, so growth in the frame after it scrolled (the anchor still counted as out of
    // view) left the end of a short answer below the fold. Not following: say that more
    // arrived below.
    const grown = new ResizeObserver(() => {
      if (this.following) this.toEnd();
      else if (this.jump.hidden && !this.atEnd()) this.jump.hidden = false;
    });
    grown.observe(scroller);
    grown.observe(content);
  }

  get following() {
    return this.isFollowing;
  }

  set following(yes) {
    this.isFollowing = yes;
    this.scroller.classList.toggle('following', yes);
    if (yes) this.jump.hidden = true;
  }

  /** Follow again from here on, and go to the end now. */
  follow() {
    this.following = true;
    this.toEnd();
  }

  /** The user went up to read: stay where they put the view. */
  release() {
    this.following = false;
  }

  toEnd() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.lastTop = this.scroller.scrollTop;
  }

  atEnd() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < END_SLACK;
  }

  wheel(event) {
    // The engine may have scrolled already (a passive listener): ask whether the log can
    // scroll at all, not whether it is at the top now.
    const s = this.scroller;
    if (event.deltaY < 0 && s.scrollHeight > s.clientHeight && !innerScrollsUp(event.target, s))
      this.release();
  }

  touch(event) {
    const y = event.touches[0]?.clientY;
    if (this.touchY == null || y == null) return;
    if (y > this.touchY + 2) this.release(); // the finger drags the text down: it scrolls up
    this.touchY = y;
  }

  key(event) {
    if (
      event.defaultPrevented ||
      event.isComposing ||
      event.altKey ||
      event.ctrlKey ||
      event.metaKey
    )
      return;
    const target = event.target;
    const inLog = this.scroller.contains(target);
    const free =
      target === document.body ||
      target === document.documentElement ||
      (inLog && !ownsKeys(target));
    const fromPrompt =
      target === this.prompt && (event.key === 'PageUp' || event.key === 'PageDown');
    if (!free && !fromPrompt) return;
    if (PAGE_KEYS.has(event.key) && !event.shiftKey) {
      // Done here, not left to the engine: with the focus on the page's body (or in the
      // message box) the engine would not scroll the log.
      event.preventDefault();
      this.page(event.key);
    } else if (UP_KEYS.has(event.key) || (event.key === ' ' && event.shiftKey)) {
      this.upIntent = performance.now(); // the engine scrolls: the scroll event decides
    }
  }

  page(key) {
    const s = this.scroller;
    if (key === 'End') {
      this.follow();
      return;
    }
    if (key === 'PageDown') {
      s.scrollTop += Math.max(s.clientHeight - PAGE_OVERLAP, s.clientHeight / 2);
      if (this.atEnd()) this.follow();
      return;
    }
    if (s.scrollTop > 0) this.release();
    s.scrollTop =
      key === 'Home'
        ? 0
        : s.scrollTop - Math.max(s.clientHeight - PAGE_OVERLAP, s.clientHeight / 2);
  }

  scrolled() {
    const top = this.scroller.scrollTop;
    const delta = top - this.lastTop;
    this.lastTop = top;
    if (this.following) {
      // Up without the user's input is the layout's doing (a redraw clamped scrollTop): the
      // anchor's observers bring the view back to the end.
      if (delta < 0 && (this.dragging || performance.now() - this.upIntent < INTENT_MS))
        this.release();
    } else if (delta > 0 && this.atEnd()) {
      this.following = true; // the user came back down to the end
    }
  }
}
