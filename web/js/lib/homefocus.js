// Where the keyboard goes when nothing else claims it: the popup was shown, or a dialog, menu,
// panel or picker (the native folder and save dialogs too) closed. The message box, or the
// approval when one waits; inside Settings or Changes while that modal panel is open. Without
// this, the focus stayed on the page's body after the window was hidden and shown again (a
// button in the chat clicked before it) or after a native dialog was cancelled, and typed text
// went nowhere.

/**
 * panels: () => the open modal panels (elements); approval: { waiting(), focus() };
 * composer: { focus() }.
 */
export function createHomeFocus({ panels, approval, composer }) {
  function focusHome() {
    const active = document.activeElement;
    const modal = panels().find((panel) => !panel.hidden);
    if (modal) {
      if (!modal.contains(active))
        modal.querySelector('button, input')?.focus({ preventScroll: true });
      return;
    }
    if (approval.waiting()) approval.focus();
    else composer.focus();
  }

  // Shown again: the page becomes visible. The window got the keyboard back with nothing
  // focused in it (after a native dialog): its own focus event, not an element's. A click
  // that brought it back focuses what it clicked, which stays.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') focusHome();
  });
  window.addEventListener('focus', (event) => {
    if (
      event.target === window &&
      (!document.activeElement || document.activeElement === document.body)
    )
      focusHome();
  });
  return focusHome;
}
