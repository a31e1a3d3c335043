// A modal panel (Settings) keeps the keyboard inside it: the rest of the page is inert while it
// is open (out of the Tab order and of what a screen reader reads), and Tab / Shift+Tab wrap
// from its last control to its first and back.
const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

const saved = new WeakMap();

function focusables(panel) {
  // Out of the Tab order (tabindex -1, as a number field's step buttons) is not a Tab stop.
  return [...panel.querySelectorAll(FOCUSABLE)].filter(
    (el) => el.tabIndex >= 0 && (el.checkVisibility?.() ?? el.offsetParent !== null),
  );
}

/** Install the Tab wrap once per panel. */
export function trapTab(panel) {
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab' || event.defaultPrevented) return;
    const list = focusables(panel);
    if (!list.length) return;
    const first = list[0];
    const last = list[list.length - 1];
    const at = document.activeElement;
    if (event.shiftKey && (at === first || !panel.contains(at))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (at === last || !panel.contains(at))) {
      event.preventDefault();
      first.focus();
    }
  });
}

/** Make everything beside the panel inert, or restore it. `keep` (a selector) stays live, e.g.
 * the title bar the panel leaves in view (Hide, the Settings toggle); toasts always stay. */
export function setModal(panel, on, keep = null) {
  const visit = (el) => {
    if (el === panel || el.classList.contains('toasts')) return;
    if (keep && el.matches(keep)) return;
    if (el.contains(panel) || (keep && el.querySelector(keep))) {
      for (const child of el.children) visit(child);
      return;
    }
    if (on) {
      if (!saved.has(el)) saved.set(el, el.inert);
      el.inert = true;
    } else if (saved.has(el)) {
      el.inert = saved.get(el);
      saved.delete(el);
    }
  };
  for (const el of panel.parentElement.children) visit(el);
}
