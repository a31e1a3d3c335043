// Themed tooltips instead of the engine's native ones (a GTK tooltip ignores the page's dark
// theme). Every `title` attribute that appears anywhere in the page, whoever set it (the
// language switch, a path row, sanitized Markdown), is moved to data-tip at once, before the
// engine can show it; the tip shows on hover after a moment and on keyboard focus.
const DELAY_MS = 450;
let tip = null;
let owner = null;
let timer = null;

function adopt(el) {
  const text = el.getAttribute('title');
  el.removeAttribute('title');
  if (text) el.dataset.tip = text;
  else delete el.dataset.tip;
  if (el === owner) show(el);
}

function sweep(root) {
  if (root.nodeType !== 1) return;
  if (root.hasAttribute('title')) adopt(root);
  for (const el of root.querySelectorAll('[title]')) adopt(el);
}

function place(el) {
  const box = el.getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const height = document.documentElement.clientHeight;
  tip.style.maxWidth = `${Math.min(320, width - 16)}px`;
  const own = tip.getBoundingClientRect();
  let top = box.bottom + 6;
  if (top + own.height > height - 4) top = Math.max(4, box.top - own.height - 6);
  const left = Math.min(
    Math.max(4, box.left + box.width / 2 - own.width / 2),
    width - own.width - 4,
  );
  tip.style.top = `${Math.round(top)}px`;
  tip.style.left = `${Math.round(left)}px`;
}

function show(el) {
  const text = el.dataset.tip;
  if (!text || !el.isConnected) return hide();
  owner = el;
  tip.textContent = text;
  tip.hidden = false;
  place(el);
  const described = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  if (!described.includes(tip.id))
    el.setAttribute('aria-describedby', [...described, tip.id].join(' '));
}

function hide() {
  clearTimeout(timer);
  if (owner) {
    const rest = (owner.getAttribute('aria-describedby') || '')
      .split(/\s+/)
      .filter((x) => x && x !== tip.id);
    if (rest.length) owner.setAttribute('aria-describedby', rest.join(' '));
    else owner.removeAttribute('aria-describedby');
  }
  owner = null;
  if (tip) tip.hidden = true;
}

export function initTooltips() {
  tip = document.createElement('div');
  tip.id = 'tooltip';
  tip.className = 'tooltip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  document.body.append(tip);
  sweep(document.body);
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes') {
        if (record.target.hasAttribute('title')) adopt(record.target);
      } else for (const node of record.addedNodes) sweep(node);
    }
  }).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['title'],
  });
  document.addEventListener('pointerover', (event) => {
    const el = event.target.closest?.('[data-tip]');
    if (el === owner) return;
    hide();
    if (el) timer = setTimeout(() => show(el), DELAY_MS);
  });
  document.addEventListener('focusin', (event) => {
    const el = event.target.closest?.('[data-tip]');
    hide();
    if (el && el.matches(':focus-visible')) show(el);
  });
  for (const type of ['pointerdown', 'focusout', 'scroll', 'keydown']) {
    document.addEventListener(
      type,
      (event) => {
        if (type === 'keydown' && event.key !== 'Escape') return;
        if (type === 'keydown' && owner) event.stopPropagation(); // Esc closes the tip first
        if (owner || !tip.hidden) hide();
      },
      true,
    );
  }
}
