// Numbers, sizes, durations and times in the current language.
import { currentLanguage, t } from './i18n.js';

export function bytes(n) {
  if (n == null || Number.isNaN(Number(n))) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = Number(n);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

export function duration(ms) {
  if (ms == null) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function count(n) {
  return new Intl.NumberFormat(currentLanguage()).format(n);
}

/** "5 min ago" style for the session list. */
export function ago(seconds) {
  const delta = Math.round(seconds - Date.now() / 1000);
  const abs = Math.abs(delta);
  const rtf = new Intl.RelativeTimeFormat(currentLanguage(), { numeric: 'auto' });
  if (abs < 60) return t('time.now');
  if (abs < 3600) return rtf.format(Math.round(delta / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(delta / 3600), 'hour');
  if (abs < 86400 * 7) return rtf.format(Math.round(delta / 86400), 'day');
  return new Date(seconds * 1000).toLocaleDateString(currentLanguage());
}

/** A path shortened from the left so the file name stays readable. */
export function shortPath(path, max = 48) {
  if (!path || path.length <= max) return path || '';
  return `…${path.slice(path.length - max + 1)}`;
}

// Characters that change how text is laid out or hide themselves: bidi embeddings, overrides
// and isolates, marks, zero-width joiners and spaces, C0/C1 controls, line separators. In a
// path or a command they can make one name look like another ("txt.exe" shown as "exe.txt"),
// so wherever a path is shown they appear as a visible ⟨U+202E⟩ instead.
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching the controls is what it is for
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

export function visible(text) {
  return String(text ?? '').replace(
    HIDDEN,
    (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

// The same, for file content and command output: tabs and line ends stay as they are.
// A zero-width joiner right after an emoji is part of it (👩‍💻) and stays.
const HIDDEN_IN_TEXT =
  // eslint-disable-next-line no-control-regex -- as HIDDEN's
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|(?<!\p{Extended_Pictographic}(?:[\u{1F3FB}-\u{1F3FF}]|\uFE0F)?)\u200d/gu;

export function visibleText(text) {
  return String(text ?? '').replace(
    HIDDEN_IN_TEXT,
    (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/** A long path as its start and its end ("/home/ana/…/src/app"), so both stay readable. */
export function middlePath(path, max = 48) {
  const text = String(path || '');
  if (text.length <= max) return text;
  const sep = text.includes('/') ? '/' : '\\';
  const parts = text.split(sep);
  let head = parts.slice(0, Math.min(3, parts.length - 1)).join(sep);
  if (head.length > max / 2) head = head.slice(0, Math.floor(max / 2));
  const room = max - head.length - 2;
  let tail = text.slice(text.length - room);
  const cut = tail.indexOf(sep);
  // from the first whole name on (a tail that starts at a separator drops it: never "…//")
  if (cut >= 0 && cut < tail.length - 1) tail = tail.slice(cut + 1);
  return `${head}${sep}…${sep}${tail}`;
}
