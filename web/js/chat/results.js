// Views of tool arguments, previews and results. Everything here is file content, paths or
// command output: untrusted, so it goes into the DOM only as textContent (via h()).
import { h } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { bytes, duration, shortPath, visible, visibleText } from '../lib/format.js';
import { hasText, t, tx } from '../lib/i18n.js';
import { fileResultView, movePreview } from './results_files.js';
import { gitCommitPreview, gitResultView } from './results_git.js';
import { webResultView } from './results_web.js';
import { mcpPreview, mcpResultView } from './results_mcp.js';

const FOLD_LINES = 14;
// Core's diff of identical contents is this fixed English note: shown in the page's language.
const NO_CHANGE = /^\(no change\)\n?$/;

/** A block that folds when it has more than FOLD_LINES lines, with a toggle below it. */
export function foldable(body, lineCount) {
  const wrap = h('div', { class: 'fold' }, body);
  if (lineCount <= FOLD_LINES) return wrap;
  wrap.classList.add('folded');
  const toggle = h('button', {
    class: 'link-btn fold-toggle',
    type: 'button',
    'aria-expanded': 'false',
    i18n: ['card.show_all', { n: lineCount }],
  });
  toggle.addEventListener('click', () => {
    const folded = wrap.classList.toggle('folded');
    toggle.setAttribute('aria-expanded', String(!folded));
    tx(toggle, folded ? 'card.show_all' : 'card.show_less', { n: lineCount });
  });
  return h('div', { class: 'fold-wrap' }, wrap, toggle);
}

function lines(text) {
  const list = String(text ?? '').split('\n');
  if (list.length > 1 && list[list.length - 1] === '') list.pop();
  return list;
}

/** Numbered file excerpt (read_file, new-file previews). */
export function excerpt(text, firstLine = 1) {
  const rows = lines(text);
  const width = String(firstLine + rows.length - 1).length;
  const body = h(
    'pre',
    { class: 'excerpt' },
    rows.map((row, i) =>
      h(
        'span',
        { class: 'ln-row' },
        h('span', { class: 'ln', text: String(firstLine + i).padStart(width, ' ') }),
        h('span', { class: 'lt', text: visibleText(row) || ' ' }),
      ),
    ),
  );
  return foldable(body, rows.length);
}

/** Unified diff with +/- lines coloured. */
export function diffView(text) {
  const rows = lines(text);
  const cls = (row) => {
    if (row.startsWith('+++') || row.startsWith('---')) return 'd-file';
    if (row.startsWith('@@')) return 'd-hunk';
    if (row.startsWith('+')) return 'd-add';
    if (row.startsWith('-')) return 'd-del';
    return 'd-ctx';
  };
  const body = h(
    'pre',
    { class: 'diff' },
    rows.map((row) => h('span', { class: cls(row), text: visibleText(row) || ' ' })),
  );
  return foldable(body, rows.length);
}

export function plainBlock(text, extra = '') {
  const rows = lines(text);
  return foldable(
    h('pre', { class: `plain ${extra}`.trim(), text: visibleText(rows.join('\n')) }),
    rows.length,
  );
}

/** The preview a write/delete/create/command shows before it runs (Toolbox.preview shapes). */
export function previewView(preview, status = 'pending') {
  if (!preview || !preview.kind || preview.kind === 'none') return null;
  const view = previewBody(preview, status);
  // write_file's content came as JSON data: what is shown is the text that will be written.
  return preview.json_content ? h('div', {}, jsonNote(), view) : view;
}

function jsonNote() {
  return h('div', { class: 'pv-label', i18n: 'card.json_content' });
}

function previewBody(preview, status) {
  switch (preview.kind) {
    case 'diff':
      if (NO_CHANGE.test(preview.text || ''))
        return h('div', { class: 'muted', i18n: 'card.no_change' });
      return preview.changes === false
        ? h(
            'div',
            {},
            h('div', { class: 'pv-label', i18n: 'card.dry_run_preview' }),
            diffView(preview.text),
          )
        : diffView(preview.text);
    case 'move':
      return movePreview(preview, plainBlock);
    case 'new_file':
      return h(
        'div',
        {},
        h('div', { class: 'pv-label', i18n: 'card.new_file_preview' }),
        excerpt(preview.text),
      );
    case 'tree':
    case 'file': {
      // Future tense while it waits, past tense once it ran (or did not).
      const key =
        { success: 'card.deleted_items', cancelled: 'card.not_deleted', error: 'card.not_deleted' }[
          status
        ] || 'card.will_delete';
      return h(
        'div',
        {},
        h('div', { class: 'pv-label', i18n: [key, { n: preview.count ?? 1 }] }),
        deleteTree(preview),
      );
    }
    case 'command':
      return commandPreview(preview);
    case 'mcp':
      return mcpPreview(preview, plainBlock);
    case 'git_commit':
      return gitCommitPreview(preview, plainBlock);
    case 'path':
      return h(
        'div',
        { class: 'kv' },
        h('span', { i18n: preview.exists ? 'card.folder_exists' : 'card.folder_new' }),
      );
    case 'error':
      return failureLine(preview.code, preview.params, preview.text, 'tc-error');
    default:
      return preview.text ? plainBlock(preview.text) : null;
  }
}

/** What a delete removes, one line per item, sizes in the page's units and words in its
 * language (Core's `rows`); a preview stored before those rows keeps Core's English text. */
function deleteTree(p) {
  const rows = Array.isArray(p.rows) ? p.rows : null;
  if (p.kind === 'file' && p.item) {
    const what = p.item === 'symlink' ? t('card.delete_link_only') : bytes(p.size ?? 0);
    return plainBlock(`${p.path}  (${what})`, 'tree');
  }
  if (!rows) return plainBlock(p.text, 'tree');
  const lines = [`${p.path}${p.sep || '/'}`];
  for (const row of rows) {
    const extra =
      row.kind === 'symlink' ? t('card.delete_link_only') : row.size != null ? bytes(row.size) : '';
    const name = `${row.name}${row.kind === 'directory' ? p.sep || '/' : ''}`;
    lines.push(
      `${'  '.repeat(Math.max(0, Math.min(Number(row.depth) || 0, 64)))}${name}${extra ? `  (${extra})` : ''}`,
    );
  }
  const more = (Number(p.count) || 1) - 1 - rows.length;
  if (more > 0) lines.push(t('card.delete_more', { n: more }));
  return plainBlock(lines.join('\n'), 'tree');
}

function commandPreview(p) {
  return h(
    'div',
    { class: 'cmd-preview' },
    h('pre', { class: 'cmd-line', text: `$ ${visibleText(p.command)}` }),
    h(
      'div',
      { class: 'kv' },
      h('span', { class: 'k', i18n: 'card.cwd' }),
      h('code', { text: visibleText(p.cwd) }),
    ),
    h(
      'div',
      { class: 'kv' },
      h('span', {
        class: p.sandboxed ? 'ok' : 'warn',
        i18n: p.sandboxed ? 'card.sandboxed' : 'card.not_sandboxed',
      }),
      p.timeout_ms
        ? h('span', { class: 'muted', i18n: ['card.time_limit', { t: duration(p.timeout_ms) }] })
        : null,
    ),
    p.blocked ? failureLine(p.blocked_code, p.blocked_params, p.blocked, 'tc-error') : null,
  );
}

/** A failure's parameters as the page shows them: paths and server text with bidi and
 * invisible characters made visible, byte counts (``size``, ``max_size``) in units. */
export function shownParams(params) {
  const out = {};
  if (!params || typeof params !== 'object' || Array.isArray(params)) return out;
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'number') out[key] = key.endsWith('size') ? bytes(value) : value;
    else out[key] = visibleText(value);
  }
  // An undo refusal's journal reason, flattened as reason_code and reason_<name>: translated too.
  if (typeof params.reason_code === 'string' && typeof params.reason === 'string') {
    const inner = {};
    for (const [key, value] of Object.entries(params)) {
      if (key.startsWith('reason_') && key !== 'reason_code') inner[key.slice(7)] = value;
    }
    out.reason = undoReasonArg({ code: params.reason_code, params: inner }, params.reason);
  }
  return out;
}

/** Why a change cannot be undone (``{code, params}`` from the journal, tray_app/undo_reasons.py)
 * as an i18n argument: ``{ key, args }``, said in the language of the moment; an uncoded or
 * unknown reason (an older entry) keeps the journal's English sentence. */
export function undoReasonArg(info, english) {
  const key = info && typeof info.code === 'string' ? `undo_reason.${info.code}` : '';
  if (!key || !hasText(key)) return visibleText(english || '');
  const args = shownParams(info.params);
  if (typeof info.params?.detail === 'string') args.detail = osReasonArg(info.params);
  return { key, args };
}

/** An OS error inside a reason (``detail``, and ``os``: its errno's code, tray_app/os_reasons.py)
 * as an i18n argument: the code's words, else the OS's own text (quoted in Chinese). */
export function osReasonArg(params) {
  const key = `os_reason.${params.os}`;
  if (typeof params.os === 'string' && params.os !== 'other' && hasText(key)) return { key };
  return { key: 'os_reason.other', args: { detail: visibleText(params.detail) } };
}

/** Why a call failed, in the page's language: ``tool_error.<code>`` with its parameters; a code
 * this page does not know (an older or newer record) keeps the tool's English sentence. */
export function failureLine(code, params, english, cls) {
  const key = typeof code === 'string' && code ? `tool_error.${code}` : '';
  if (key && hasText(key)) return h('div', { class: cls, i18n: [key, shownParams(params)] });
  return h('div', { class: cls, text: visibleText(english || '') });
}

/** The result view fit for each tool. */
export function resultView(name, result, record) {
  if (!result) return null;
  if (result.success === false) {
    const cls = record.status === 'cancelled' ? 'tc-cancelled-note' : 'tc-error';
    const why = failureLine(result.code, result.params, result.error, cls);
    // A command that ran and failed: what it printed is the reason.
    if (name === 'run_command' && ('stdout' in result || 'stderr' in result))
      return h('div', { class: 'tc-failed' }, why, commandView(result));
    // An edit that matched nothing: the file's lines nearest to what the model asked for.
    const nearest = result.params?.nearest;
    if (typeof nearest === 'string' && nearest)
      return h('div', { class: 'tc-failed' }, why, plainBlock(nearest));
    return why;
  }
  if (typeof result.server === 'string' && typeof result.content === 'string')
    return mcpResultView(result, plainBlock);
  switch (name) {
    case 'read_file':
      return readView(result);
    case 'list_directory':
      return listView(result);
    case 'search_files':
      return searchView(result, record.arguments?.path);
    case 'run_command':
      return commandView(result);
    case 'write_file': {
      const done = h('div', {
        class: 'tc-done',
        i18n: [
          result.created ? 'card.wrote_new' : 'card.wrote',
          { size: bytes(result.bytesWritten) },
        ],
      });
      return result.json_content ? h('div', {}, done, jsonNote()) : done;
    }
    case 'create_directory':
      return h('div', {
        class: 'tc-done',
        i18n: result.created ? 'card.created_dir' : 'card.dir_existed',
      });
    case 'delete_file':
      return h('div', { class: 'tc-done', i18n: result.trashed ? 'card.trashed' : 'card.deleted' });
    default:
      return (
        fileResultView(name, result, { diffView, excerpt, foldable, failureLine }) ??
        gitResultView(name, result, { diffView, plainBlock }) ??
        webResultView(name, result, { plainBlock }) ??
        plainBlock(JSON.stringify(result, null, 2))
      );
  }
}

function readView(r) {
  if (r.encoding === 'base64') {
    return h('div', { class: 'tc-meta', i18n: ['card.read_binary', { size: bytes(r.size) }] });
  }
  const start = Array.isArray(r.line_range) && r.line_range[0] ? r.line_range[0] : 1;
  return h(
    'div',
    {},
    excerpt(r.content, start),
    h(
      'div',
      { class: 'tc-meta' },
      `${bytes(r.size)} · `,
      h('span', { i18n: ['card.lines', { n: r.lines ?? 0 }] }),
      ` · ${r.encoding || 'utf-8'}`,
      r.truncated
        ? h('span', {
            class: 'warn',
            i18n: ['card.range', { a: start, b: r.line_range?.[1] ?? '' }],
          })
        : null,
    ),
  );
}

function listView(r) {
  const entries = r.entries || [];
  const list = h(
    'ul',
    { class: 'entries' },
    entries.map((e) =>
      h(
        'li',
        { class: `entry ${e.type}` },
        icon(e.type === 'directory' ? 'folder' : 'file'),
        h('span', { class: 'entry-name', text: e.type === 'directory' ? `${e.name}/` : e.name }),
        e.size != null ? h('span', { class: 'entry-size', text: bytes(e.size) }) : null,
      ),
    ),
  );
  return h(
    'div',
    {},
    foldable(list, entries.length),
    h(
      'div',
      { class: 'tc-meta' },
      h('span', { i18n: ['card.entries', { n: r.total ?? entries.length }] }),
      r.truncated ? h('span', { class: 'warn', i18n: 'card.truncated' }) : null,
    ),
  );
}

// Hits read best relative to the folder searched (src/main.ts:3, not the whole path).
function relative(path, root) {
  const base = String(root || '').replace(/[\\/]+$/, '');
  if (base && path.startsWith(base) && /[\\/]/.test(path[base.length] || ''))
    return path.slice(base.length + 1);
  return shortPath(path, 36);
}

function searchView(r, root) {
  const rows = [];
  for (const file of r.results || []) {
    for (const m of file.matches || []) {
      rows.push(
        h(
          'li',
          { class: 'hit' },
          h('span', {
            class: 'hit-path',
            title: visible(file.path),
            text: `${visible(relative(file.path, root))}${m.line ? `:${m.line}` : ''}`,
          }),
          m.line
            ? h('span', { class: 'hit-text', text: visibleText(String(m.text ?? '').trim()) })
            : null,
        ),
      );
    }
  }
  return h(
    'div',
    {},
    foldable(h('ul', { class: 'hits' }, rows), rows.length),
    h(
      'div',
      { class: 'tc-meta' },
      h('span', { i18n: ['card.hits', { files: r.total_files ?? 0, n: r.total_matches ?? 0 }] }),
      searchPage(r, rows.length),
      r.truncated ? h('span', { class: 'warn', i18n: 'card.truncated' }) : null,
    ),
  );
}

// A page of a longer search (offset / next_offset): which matches these are, and of how many
// when the search saw them all (not truncated).
function searchPage(r, shown) {
  const offset = Number(r.offset) || 0;
  if (!shown || (!offset && r.next_offset == null)) return null;
  const range = { a: offset + 1, b: offset + shown };
  if (r.truncated) return h('span', { class: 'page', i18n: ['card.search_page', range] });
  return h('span', {
    class: 'page',
    i18n: ['card.search_page_of', { ...range, k: offset + (Number(r.total_matches) || shown) }],
  });
}

function commandView(r) {
  const out = String(r.stdout ?? '');
  const err = String(r.stderr ?? '');
  return h(
    'div',
    {},
    out ? plainBlock(out, 'stdout') : null,
    err ? plainBlock(err, 'stderr') : null,
    !out && !err ? h('div', { class: 'muted', i18n: 'card.no_output' }) : null,
    h(
      'div',
      { class: 'tc-meta' },
      h('span', {
        class: r.exitCode === 0 ? 'ok' : 'warn',
        i18n: ['card.exit_code', { code: r.exitCode ?? '?' }],
      }),
      r.duration != null ? ` · ${duration(r.duration)}` : null,
    ),
  );
}
