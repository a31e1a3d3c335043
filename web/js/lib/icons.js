// Line icons as SVG built with createElementNS (no markup strings, no icon font, no network).
const NS = 'http://www.w3.org/2000/svg';

// Each icon: a list of [element, attributes] on a 24x24 grid, stroked with currentColor.
const ICONS = {
  menu: [['path', { d: 'M4 6h16M4 12h16M4 18h16' }]],
  plus: [['path', { d: 'M12 5v14M5 12h14' }]],
  settings: [
    ['path', { d: 'M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6' }],
  ],
  send: [['path', { d: 'M12 19V5M5 12l7-7 7 7' }]],
  stop: [['rect', { x: 7, y: 7, width: 10, height: 10, rx: 2, fill: 'currentColor' }]],
  copy: [
    ['rect', { x: 9, y: 9, width: 12, height: 12, rx: 2 }],
    ['path', { d: 'M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1' }],
  ],
  edit: [['path', { d: 'M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z' }]],
  retry: [['path', { d: 'M3 4v6h6M3.5 15a9 9 0 1 0 2.1-9.4L3 10' }]],
  folder: [
    ['path', { d: 'M3 6a1 1 0 0 1 1-1h5l2 2.5h9a1 1 0 0 1 1 1V18a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z' }],
  ],
  'folder-plus': [
    [
      'path',
      {
        d: 'M3 6a1 1 0 0 1 1-1h5l2 2.5h9a1 1 0 0 1 1 1V18a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1zM12 10.5v6M9 13.5h6',
      },
    ],
  ],
  git: [
    ['circle', { cx: 6, cy: 18, r: 2.5 }],
    ['circle', { cx: 18, cy: 6, r: 2.5 }],
    ['path', { d: 'M6 3v12.5M18 8.5c0 5-12 3-12 7' }],
  ],
  file: [['path', { d: 'M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8zM14 3v5h5' }]],
  search: [
    ['circle', { cx: 11, cy: 11, r: 7 }],
    ['path', { d: 'M20 20l-4-4' }],
  ],
  terminal: [['path', { d: 'M4 17l6-5-6-5M12 19h8' }]],
  trash: [['path', { d: 'M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3' }]],
  write: [
    [
      'path',
      {
        d: 'M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h5M14 3v5h5M19 8v2M13.5 21l.5-2.5 5.5-5.5 2 2-5.5 5.5z',
      },
    ],
  ],
  list: [['path', { d: 'M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01' }]],
  check: [['path', { d: 'M20 6L9 17l-5-5' }]],
  close: [['path', { d: 'M18 6L6 18M6 6l12 12' }]],
  chevron: [['path', { d: 'M6 9l6 6 6-6' }]],
  image: [
    ['rect', { x: 3, y: 3, width: 18, height: 18, rx: 2 }],
    ['circle', { cx: 8.5, cy: 8.5, r: 1.5 }],
    ['path', { d: 'M21 15l-5-5L5 21' }],
  ],
  undo: [['path', { d: 'M3 7v6h6M21 17a9 9 0 0 0-15-6.7L3 13' }]],
  wrap: [['path', { d: 'M3 6h18M3 12h15a3 3 0 0 1 0 6h-4M3 18h7M16 16l-2 2 2 2' }]],
  history: [['path', { d: 'M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5M12 7v5l3 2' }]],
  alert: [
    [
      'path',
      {
        d: 'M12 9v4M12 17h.01M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z',
      },
    ],
  ],
  spark: [
    [
      'path',
      {
        d: 'M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9zM19 16l.8 2.2L22 19l-2.2.8L19 22l-.8-2.2L16 19l2.2-.8z',
      },
    ],
  ],
  think: [['path', { d: 'M9 18h6M10 22h4M12 2a7 7 0 0 0-4 12.7V16h8v-1.3A7 7 0 0 0 12 2z' }]],
  ban: [
    ['circle', { cx: 12, cy: 12, r: 9 }],
    ['path', { d: 'M5.6 5.6l12.8 12.8' }],
  ],
  clock: [
    ['circle', { cx: 12, cy: 12, r: 9 }],
    ['path', { d: 'M12 7v5l3 2' }],
  ],
  tool: [['path', { d: 'M14.7 6.3a4 4 0 0 0 5 5L21 13l-8 8-3-3 8-8-1.3-1.3a4 4 0 0 0-5-5L14 6z' }]],
  external: [
    ['path', { d: 'M14 3h7v7M21 3l-9 9M19 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1h5' }],
  ],
  hide: [['path', { d: 'M6 12h12' }]],
  download: [['path', { d: 'M12 4v11M7 10l5 5 5-5M5 20h14' }]],
  more: [['path', { d: 'M5 12h.01M12 12h.01M19 12h.01', 'stroke-width': 3 }]],
};

export function icon(name, extraClass = '') {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', `icon ${extraClass}`.trim());
  for (const [tag, attrs] of ICONS[name] || ICONS.tool) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    svg.append(node);
  }
  return svg;
}

/** Fill every static [data-icon] element of the page once at start. */
export function fillIcons(root = document) {
  for (const el of root.querySelectorAll('[data-icon]')) {
    if (!el.querySelector('svg')) el.prepend(icon(el.dataset.icon));
  }
}
