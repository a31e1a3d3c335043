// Card views of the tools declared in their own modules: edit_file, move_file,
// read_multiple_files, directory_tree, get_file_info, list_allowed_directories. File content,
// names and paths are untrusted: they reach the DOM only as textContent (via h()).
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { bytes, visibleText } from '../lib/format.js';

/** The result view for one of these tools, or undefined for any other tool. */
export function fileResultView(name, r, { diffView, excerpt, foldable, failureLine }) {
  switch (name) {
    case 'edit_file':
      return editView(r, diffView);
    case 'move_file':
      return h(
        'div',
        { class: 'tc-done' },
        h('span', { i18n: r.replaced ? 'card.moved_replacing' : 'card.moved' }),
        ' ',
        h('code', { class: 'mono', text: r.destination || '' }),
      );
    case 'read_multiple_files':
      return manyView(r, excerpt, failureLine);
    case 'directory_tree':
      return treeView(r, foldable);
    case 'get_file_info':
      return infoView(r);
    case 'list_allowed_directories':
      return h(
        'ul',
        { class: 'entries' },
        (r.directories || []).map((d) =>
          h(
            'li',
            { class: 'entry directory' },
            icon('folder'),
            h('span', { class: 'entry-name', text: d }),
            d === r.workspace ? h('span', { class: 'entry-size', i18n: 'card.workspace' }) : null,
          ),
        ),
      );
    default:
      return undefined;
  }
}

function editView(r, diffView) {
  const count = (r.edits || []).length;
  return h(
    'div',
    {},
    r.diff ? diffView(r.diff) : null,
    h(
      'div',
      { class: 'tc-meta' },
      h('span', { i18n: [r.dry_run ? 'card.edit_dry_run' : 'card.edited', { n: count }] }),
      r.format ? ` · ${r.format}` : null,
      (r.edits || []).some((e) => e.matched === 'whitespace')
        ? h('span', { class: 'warn', i18n: 'card.edit_whitespace' })
        : null,
    ),
  );
}

function manyView(r, excerpt, failureLine) {
  return h(
    'div',
    { class: 'multi-read' },
    (r.files || []).map((f) =>
      h(
        'section',
        { class: 'multi-file' },
        h('div', { class: 'pv-label mono', text: visibleText(f.path) }),
        f.success === false
          ? failureLine(f.code, f.params, f.error, 'tc-error')
          : h(
              'div',
              {},
              excerpt(f.content, f.line_range?.[0] || 1),
              f.truncated
                ? h('div', {
                    class: 'tc-meta warn',
                    i18n: ['card.continue_at', { n: f.next_start_line ?? '' }],
                  })
                : null,
            ),
      ),
    ),
  );
}

function treeLines(nodes, depth, out) {
  for (const node of nodes || []) {
    const dir = node.type === 'directory';
    const extra = node.size != null ? `  (${bytes(node.size)})` : node.not_listed ? '  …' : '';
    out.push(`${'  '.repeat(depth)}${node.name}${dir ? '/' : ''}${extra}`);
    if (node.children) treeLines(node.children, depth + 1, out);
  }
  return out;
}

function treeView(r, foldable) {
  const rows = treeLines(r.tree, 0, []);
  return h(
    'div',
    {},
    foldable(h('pre', { class: 'plain tree', text: rows.join('\n') }), rows.length),
    h(
      'div',
      { class: 'tc-meta' },
      h('span', { i18n: ['card.entries', { n: r.total ?? rows.length }] }),
      r.truncated ? h('span', { class: 'warn', i18n: 'card.truncated' }) : null,
    ),
  );
}

function infoView(r) {
  const rows = [
    ['card.info_type', r.type],
    ['card.info_size', r.size != null ? bytes(r.size) : null],
    ['card.info_modified', r.modified],
    ['card.info_permissions', r.permissions],
    ['card.info_lines', r.lines],
    [
      'card.info_encoding',
      r.encoding
        ? [r.encoding, r.bom ? 'BOM' : '', r.line_endings === 'crlf' ? 'CRLF' : '']
            .filter(Boolean)
            .join(', ')
        : null,
    ],
  ].filter(([, v]) => v != null && v !== '');
  return h(
    'dl',
    { class: 'ap-facts info' },
    rows.map(([k, v]) =>
      h(
        'div',
        { class: 'kv' },
        h('dt', { class: 'k', i18n: k }),
        h('dd', { class: 'v', text: String(v) }),
      ),
    ),
  );
}

/** The approval preview of a move (kind "move"). */
export function movePreview(p, plainBlock) {
  return h(
    'div',
    {},
    h('div', { class: 'pv-label', i18n: p.deletes ? 'card.move_replaces' : 'card.move_to' }),
    plainBlock(p.text || ''),
  );
}

/** The warning a preview carries when its target makes something run later. */
export function persistenceWarning(p) {
  const w = p && p.persistence;
  if (!w) return null;
  const key = ['login', 'shell', 'vscode', 'git_hook'].includes(w.code)
    ? `warn.persist_${w.code}`
    : 'warn.persist_other';
  return h(
    'div',
    { class: 'tc-error persist-warning', role: 'alert' },
    icon('alert'),
    ' ',
    h('span', { i18n: key }),
    ' ',
    h('code', { class: 'mono', text: w.path || '' }),
  );
}
