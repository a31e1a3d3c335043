// Every visible string comes from web/locales/<lang>.json. Elements remember their key in
// data-i18n (and data-i18n-title / -aria-label / -placeholder), so switching language is one
// pass over the document and nothing has to be rebuilt.
const ATTRS = ['title', 'aria-label', 'placeholder'];
// The languages there are catalogues for, with their own names: Core lists web/locales/.
let supported = [
  { code: 'en', name: 'English' },
  { code: 'zh-CN', name: '简体中文' },
];
const codes = () => supported.map((l) => l.code);
let lang = 'en';
let dict = {};
let fallback = {};
let plural = new Intl.PluralRules('en');

export function currentLanguage() {
  return lang;
}

let systemLanguage = null;

/** What "system" means, as Core decides it for the tray, notifications and terminal (from
 * LC_ALL / LC_MESSAGES / LANG / LANGUAGE). WebKitGTK reads only LC_CTYPE's locale, and says
 * en-US when that locale is not installed, so its list alone can disagree with the tray. */
export function setSystemLanguage(code) {
  systemLanguage = codes().includes(code) ? code : null;
}

/** The catalogues Core found (``[{code, name}]``); a language added as a file is listed. */
export function setLanguages(list) {
  if (Array.isArray(list) && list.some((l) => l && l.code === 'en')) supported = list;
}

export function languages() {
  return supported;
}

/** "system" follows Core's choice, else the browser's (= the OS's) language list. */
export function resolveLanguage(setting) {
  if (codes().includes(setting)) return setting;
  if (systemLanguage) return systemLanguage;
  const prefs = navigator.languages?.length ? navigator.languages : [navigator.language || 'en'];
  const primary = (code) => String(code).toLowerCase().split('-')[0];
  for (const pref of prefs) {
    const found = codes().find((c) => primary(c) === primary(pref));
    if (found) return found;
  }
  return 'en';
}

async function load(code) {
  const response = await fetch(`locales/${code}.json`, { cache: 'no-cache' });
  if (!response.ok) throw new Error(`cannot load locale ${code}`);
  return response.json();
}

export async function setLanguage(setting) {
  const next = resolveLanguage(setting);
  if (!Object.keys(fallback).length) fallback = await load('en');
  dict = next === 'en' ? fallback : await load(next);
  lang = next;
  plural = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
  translateTree(document);
  document.dispatchEvent(new CustomEvent('metona:language', { detail: { lang } }));
}

/** Whether a locale has a text for ``key`` (codes from Core are shown only when it does). */
export function hasText(key) {
  return key in dict || key in fallback;
}

export function t(key, args) {
  let text = dict[key] ?? fallback[key];
  if (args && typeof args.n === 'number') {
    const form = `${key}_${plural.select(args.n)}`;
    text = dict[form] ?? fallback[form] ?? dict[`${key}_other`] ?? fallback[`${key}_other`] ?? text;
  }
  if (text == null) return key;
  if (!args) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in args ? argText(args[name]) : m));
}

/** An argument is text, or ``{ key, args }``: a text of its own, said in the language of the
 * moment (a coded reason inside a sentence follows a language switch too). */
function argText(value) {
  if (value && typeof value === 'object' && typeof value.key === 'string')
    return t(value.key, value.args);
  return String(value);
}

function setArgs(el, args) {
  if (args) el.dataset.i18nArgs = JSON.stringify(args);
  else delete el.dataset.i18nArgs;
}

/** Set an element's text from a key (and remember it for language switches). */
export function tx(el, key, args) {
  el.dataset.i18n = key;
  setArgs(el, args);
  el.textContent = t(key, args);
  return el;
}

export function tattr(el, attr, key, args) {
  el.setAttribute(`data-i18n-${attr}`, key);
  if (args) setArgs(el, args);
  el.setAttribute(attr, t(key, args));
  return el;
}

export function translateTree(root) {
  const selector = ['[data-i18n]', ...ATTRS.map((a) => `[data-i18n-${a}]`)].join(',');
  for (const el of root.querySelectorAll(selector)) {
    const args = el.dataset.i18nArgs ? JSON.parse(el.dataset.i18nArgs) : undefined;
    if (el.dataset.i18n) el.textContent = t(el.dataset.i18n, args);
    for (const attr of ATTRS) {
      const key = el.getAttribute(`data-i18n-${attr}`);
      if (key) el.setAttribute(attr, t(key, args));
    }
  }
}
