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
