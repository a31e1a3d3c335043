// What a screen reader is told, once: a new approval (assertive: it waits for the user) and an
// answer that finished (polite). The log itself is not a live region, so text streaming in is
// not read out frame by frame.
import { t } from '../lib/i18n.js';

const MAX = 400;

function say(id, text) {
  const region = document.getElementById(id);
  if (!region) return;
  // Clearing first makes the same text read again when it is announced twice.
  region.textContent = '';
  requestAnimationFrame(() => {
    region.textContent = text.length > MAX ? `${text.slice(0, MAX - 1)}…` : text;
  });
}

export function announceUrgent(text) {
  say('announce-assertive', text);
}

/** An answer is complete: its text, read once (the speaker first). */
export function announceAnswer(text) {
  const body = String(text || '').trim();
  if (body) say('announce-polite', `${t('msg.speaker_assistant')}: ${body}`);
}
