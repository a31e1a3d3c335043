// One drawing budget a frame for every message: a chat that opens with many long messages, or
// a burst that finishes several at once, is drawn over several frames, newest first (the end
// of the chat is what shows), instead of each message taking its own slice of the same frame.

// Milliseconds of drawing a task may spend on messages (the rest of the frame is layout).
const SLICE_MS = 8;

let deadline = 0;
const waiting = new Set(); // views with text still to draw: each has draw()
let frame = 0;

/**
 * The end of this task's drawing budget, shared by every message drawn in it. A frame's
 * animation-frame callbacks (the queue below, the events' flush) run in one task, so they share
 * one budget too: it ends with the task, not with each callback.
 */
export function frameDeadline() {
  if (!deadline) {
    deadline = performance.now() + SLICE_MS;
    setTimeout(() => {
      deadline = 0;
    });
  }
  return deadline;
}

/** `view.draw()` is called again in a later frame (it calls drawLater again while unfinished). */
export function drawLater(view) {
  waiting.add(view);
  if (!frame) frame = requestAnimationFrame(drawWaiting);
}

function drawWaiting() {
  frame = 0;
  const until = frameDeadline();
  const views = [...waiting].reverse();
  waiting.clear();
  for (const [k, view] of views.entries()) {
    if (!view.el.isConnected) continue; // its chat was closed: reopening draws it again
    if (performance.now() >= until) {
      views
        .slice(k)
        .reverse()
        .forEach((later) => waiting.add(later));
      break;
    }
    view.draw();
  }
  if (waiting.size && !frame) frame = requestAnimationFrame(drawWaiting);
}
