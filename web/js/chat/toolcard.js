// One tool call as a live card: icon, name, key arguments, status
// with its colour (spinner while running), and a result view fit for the tool.
import { h, emit, wrapsAtSeparators } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { t } from '../lib/i18n.js';
import { bytes, duration, middlePath, visible } from '../lib/format.js';
import { failureLine, previewView, resultView, plainBlock, undoReasonArg } from './results.js';
import { store } from '../lib/store.js';
import { call } from '../lib/bridge.js';

export const TOOL_ICONS = {
  read_file: 'file',
  write_file: 'write',
  list_directory: 'list',
  search_files: 'search',
  create_directory: 'folder-plus',
  delete_file: 'trash',
  run_command: 'terminal',
  edit_file: 'edit',
  move_file: 'write',
  read_multiple_files: 'file',
  directory_tree: 'list',
  get_file_info: 'file',
  list_allowed_directories: 'folder',
  git_status: 'git',
  git_diff: 'git',
  git_log: 'git',
  git_commit: 'git',
  web_fetch: 'external',
};

const STATUS_ICONS = { pending: 'clock', success: 'check', error: 'alert', cancelled: 'ban' };

export function toolLabel(name) {
  const key = `tool.${name}`;
  return t(key) === key ? name : key;
}

/** A tool with no locale text, as people read it: an MCP tool as "server › tool" (from its
 * preview) rather than the model's "weather__weather"; anything else as its name. */
export function plainToolName(call) {
  const p = call.preview;
  if (p?.kind === 'mcp' && typeof p.server === 'string' && typeof p.mcp_tool === 'string') {
    return `${visible(p.server)} › ${visible(p.mcp_tool)}`;
  }
  return visible(call.name);
}

const MONO = new Set([
  'arg.path',
  'arg.cwd',
  'arg.command',
  'arg.query',
  'arg.arguments',
  'arg.source',
  'arg.destination',
  'arg.paths',
]);

/** Paths, commands and queries read best in the code font. */
export function valueClass(key) {
  return MONO.has(key) ? 'v mono' : 'v';
}

/** The arguments worth a glance, as [label key, value, value is a locale key] rows. */
/** write_file's content as the text written: JSON data given for it is written formatted. */
function contentText(content) {
  return content !== null && typeof content === 'object'
    ? JSON.stringify(content, null, 2)
    : String(content ?? '');
}

export function keyArgs(name, args = {}) {
  const rows = [];
  const add = (key, value, isKey = false) => {
    if (value != null && value !== '') rows.push([key, String(value), isKey]);
  };
  switch (name) {
    case 'read_file':
      add('arg.path', args.path);
      if (args.start_line || args.end_line)
        add('arg.lines', `${args.start_line ?? 1}–${args.end_line ?? ''}`);
      break;
    case 'write_file':
      add('arg.path', args.path);
      add('arg.size', bytes(new TextEncoder().encode(contentText(args.content)).length));
      break;
    case 'search_files':
      add('arg.query', args.query);
      add('arg.path', args.path);
      break;
    case 'list_directory':
    case 'create_directory':
      add('arg.path', args.path);
      if (args.recursive) add('arg.recursive', 'common.yes', true);
      break;
    case 'delete_file':
      add('arg.path', args.path);
      if (args.recursive) add('arg.recursive', 'common.yes', true);
      break;
    case 'edit_file':
      add('arg.path', args.path);
      add('arg.edits', String(Array.isArray(args.edits) ? args.edits.length : 1));
      if (args.dry_run) add('arg.dry_run', 'common.yes', true);
      break;
    case 'move_file':
      add('arg.source', args.source);
      add('arg.destination', args.destination);
      if (args.overwrite) add('arg.overwrite', 'common.yes', true);
      break;
    case 'read_multiple_files':
      add('arg.paths', Array.isArray(args.paths) ? args.paths.join(', ') : args.paths);
      break;
    case 'directory_tree':
    case 'get_file_info':
      add('arg.path', args.path);
      break;
    case 'list_allowed_directories':
      break;
    case 'git_status':
      add('arg.path', args.path);
      break;
    case 'git_diff':
      add('arg.path', args.path);
      add('arg.paths', Array.isArray(args.files) ? args.files.join(', ') : args.files);
      if (args.staged) add('arg.staged', 'common.yes', true);
      break;
    case 'git_log':
      add('arg.path', args.path);
      add('arg.paths', args.file);
      break;
    case 'git_commit':
      add(
        'arg.message',
        typeof args.message === 'string' ? args.message.split('\n')[0] : args.message,
      );
      add('arg.path', args.path);
      add('arg.paths', Array.isArray(args.files) ? args.files.join(', ') : args.files);
      break;
    case 'web_fetch':
      add('arg.url', args.url);
      if (args.start) add('arg.start', String(args.start));
      break;
    case 'run_command':
      add('arg.command', args.command);
      add('arg.cwd', args.cwd);
      break;
    default: {
      const text = JSON.stringify(args);
      add('arg.arguments', text.length > 200 ? `${text.slice(0, 200)}…` : text);
    }
  }
  return rows;
}

const FINISHED = new Set(['success', 'error', 'cancelled']);
let cardIds = 0;

/** The one argument that names what a call is about, for the one-line summary. A path is its
 * folder (which gives way first when the line is short) and its file name (which stays), so a
 * narrow card reads "/home/ana/pro…/report.txt" rather than "/home…"; the tooltip has it all. */
function keyArgument(name, args) {
  const row = keyArgs(name, args).find(([, , isKey]) => !isKey);
  if (!row) return h('span', { class: 'tc-arg' });
  const text = visible(row[1]);
  if (!MONO_PATH.has(row[0]))
    return h('span', { class: 'tc-arg', text: text.length > 60 ? `${text.slice(0, 59)}…` : text });
  const trimmed = text.replace(/[/\\]+$/, '') || text;
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\')) + 1;
  // Bounded: a path the model made up can be any length; the line shows a few dozen characters.
  const folder = middlePath(trimmed.slice(0, cut), 120);
  const file = trimmed.slice(cut);
  return h(
    'span',
    { class: 'tc-arg tc-path', title: text },
    folder ? h('span', { class: 'tc-dir', text: folder }) : null,
    h('span', {
      class: 'tc-file',
      text: file.length > 120 ? `${file.slice(0, 60)}…${file.slice(-59)}` : file,
    }),
  );
}
const MONO_PATH = new Set(['arg.path', 'arg.source', 'arg.destination', 'arg.cwd']);

/** What the finished call did, in the past tense, for the summary line (or null). */
function outcomeKey(record) {
  const { name, status, result, preview } = record;
  if (status === 'cancelled') return ['card.outcome_cancelled'];
  if (status !== 'success' || !result) return null;
  if (name === 'delete_file') return ['card.outcome_deleted', { n: preview?.count ?? 1 }];
  if (name === 'write_file')
    return [
      result.created ? 'card.outcome_created' : 'card.outcome_saved',
      { size: bytes(result.bytesWritten) },
    ];
  if (name === 'edit_file') return editOutcome(result);
  return null;
}

/** "Edited: 1 replacement, +3 −1 lines": the replacements made, and the lines the diff adds
 * and removes when the card has the whole diff (a shortened one would undercount). */
function editOutcome(result) {
  const n = Array.isArray(result.edits) ? result.edits.length : 1;
  if (result.dry_run) return ['card.edit_dry_run', { n }];
  const diff = typeof result.diff === 'string' && !result.diff_truncated ? result.diff : '';
  if (!diff || result.diff === '(no change)\n') return ['card.outcome_edited', { n }];
  return ['card.outcome_edited_lines', { n, ...diffCounts(diff) }];
}

/** The lines a unified diff adds and removes (its ---/+++ file lines are not counted). */
export function diffCounts(diff) {
  let added = 0;
  let removed = 0;
  let inHunk = false; // the ---/+++ file lines come before the first hunk only
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('+')) added += 1;
    else if (inHunk && line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}

export class ToolCard {
  constructor(record) {
    this.bodyId = `tc-body-${++cardIds}`;
    this.expanded = null; // null: follow the status; true/false: the user chose
    this.el = h('div', { class: 'tool-card', role: 'group' });
    this.update(record);
  }

  update(record) {
    this.record = record;
    const { name, status } = record;
    const awaiting = status === 'pending' && record.awaiting;
    const finished = FINISHED.has(status);
    // A finished call is one line (a failure stays open: its output says why) until the user
    // opens it; a call still running or waiting shows everything.
    const open = !finished || (this.expanded ?? status === 'error');
    this.el.className = `tool-card status-${status}${awaiting ? ' awaiting' : ''}${open ? '' : ' compact'}`;
    this.el.dataset.callId = record.call_id;
    this.el.dataset.status = status;
    const label = toolLabel(name);
    const friendly = label === name ? plainToolName(record) : t(label);
    this.el.setAttribute('aria-label', friendly);
    const statusKey = awaiting ? 'status.awaiting' : `status.${status}`;
    const outcome = outcomeKey(record);
    const summary = [
      h('span', { class: 'tc-icon' }, icon(TOOL_ICONS[name] || 'tool')),
      label === name
        ? h('span', {
            class: 'tc-name',
            text: friendly,
            title: friendly === name ? null : visible(name),
          })
        : h('span', { class: 'tc-name', i18n: label, title: name }),
      // Open: the rows below say it.
      open ? h('span', { class: 'tc-arg' }) : keyArgument(name, record.arguments),
      h(
        'span',
        { class: 'tc-status', role: 'status' },
        status === 'running'
          ? h('span', { class: 'spinner', 'aria-hidden': 'true' })
          : icon(STATUS_ICONS[status] || 'clock'),
        h('span', { i18n: outcome || statusKey, i18nTitle: outcome }),
      ),
      record.duration_ms != null && finished
        ? h('span', { class: 'tc-time', text: duration(record.duration_ms) })
        : null,
    ];
    const head = finished
      ? h(
          'div',
          { class: 'tc-head' },
          h(
            'button',
            {
              class: 'tc-toggle',
              type: 'button',
              'aria-expanded': String(open),
              'aria-controls': this.bodyId,
              onclick: () => {
                // The log keeps the card's top where it was (under the pointer): chatlog.js.
                const top = this.el.getBoundingClientRect().top;
                this.expanded = !open;
                this.update(this.record);
                emit(this.el, 'metona:card-toggled', { top });
              },
            },
            h('span', { class: 'tc-chev', 'aria-hidden': 'true' }, icon('chevron')),
            summary,
          ),
          record.undone
            ? h('span', { class: 'tc-undone', i18n: 'card.undone' })
            : this.undoButton(record),
        )
      : h('div', { class: 'tc-head' }, summary);
    const details = h('div', { class: 'tc-details', id: this.bodyId, hidden: !open });
    if (open) {
      const args = h('div', { class: 'tc-args' }, this.argRows(record));
      const body = h('div', { class: 'tc-body' }, this.bodyFor(record));
      if (args.childNodes.length) details.append(args);
      if (body.childNodes.length) details.append(body);
    }
    const foot = this.footFor(record, awaiting);
    if (foot) details.append(foot);
    this.el.replaceChildren(head, details);
  }

  argRows(record) {
    const { name } = record;
    const rows = keyArgs(name, record.arguments);
    // The folder a command ran in, also when the model gave none.
    const cwd = record.result?.cwd ?? record.preview?.cwd;
    if (name === 'run_command' && cwd && !rows.some(([key]) => key === 'arg.cwd'))
      rows.push(['arg.cwd', cwd]);
    return rows.map(([key, value, isKey]) =>
      h(
        'div',
        { class: 'kv' },
        h('span', { class: 'k', i18n: key }),
        h(
          name === 'run_command' && key === 'arg.command' ? 'code' : 'span',
          isKey ? { class: 'v', i18n: value } : { class: valueClass(key), title: visible(value) },
          isKey ? null : wrapsAtSeparators(visible(value)),
        ),
      ),
    );
  }

  bodyFor(record) {
    const { name, status, preview, result } = record;
    const parts = [];
    // Writes and deletes keep their preview (the diff, the tree) after they ran; the command
    // itself is in the arguments above, so its preview is not repeated.
    // A call waiting for the user shows its preview once, in the approval panel; the card
    // only points there (Review).
    const showPreview =
      preview &&
      preview.kind !== 'error' &&
      name !== 'run_command' &&
      !record.awaiting &&
      (status === 'pending' || ['write_file', 'delete_file'].includes(name));
    if (showPreview) parts.push(previewView(preview, status));
    if (status === 'pending' && name === 'run_command' && preview?.blocked)
      parts.push(
        failureLine(preview.blocked_code, preview.blocked_params, preview.blocked, 'tc-error'),
      );
    if (preview && preview.kind === 'error' && !result) parts.push(previewView(preview));
    if (result) parts.push(resultView(name, result, record));
    if (result?.card_full) parts.push(this.showAllButton(record));
    const progress = status === 'running' ? store.progress.get(record.call_id) : null;
    if (progress) parts.push(progressView(progress));
    if (!parts.length && status === 'running' && name === 'run_command') {
      parts.push(plainBlock(t('card.running_cmd')));
    }
    return parts.filter(Boolean);
  }

  /** The model got a shortened result; Core kept it whole for the user (``full_result``). */
  showAllButton(record) {
    const box = h('div', { class: 'tc-full' });
    const button = h('button', {
      class: 'btn small tc-show-all',
      type: 'button',
      i18n: 'card.show_all',
      onclick: async () => {
        button.disabled = true;
        try {
          const full = await call('full_result', { call_id: record.call_id });
          box.replaceChildren(
            resultView(record.name, full, record) || plainBlock(JSON.stringify(full, null, 2)),
          );
        } catch {
          box.replaceChildren(h('div', { class: 'tc-error', i18n: 'card.full_gone' }));
        }
      },
    });
    box.append(h('span', { class: 'tc-meta warn', i18n: 'card.shortened_for_model' }), ' ', button);
    return box;
  }

  undoButton(record) {
    if (!(record.undoable && !record.undone && record.status === 'success')) return null;
    return h(
      'button',
      {
        class: 'btn small tc-undo',
        type: 'button',
        icon: 'undo',
        onclick: (event) => {
          event.currentTarget.disabled = true;
          emit(this.el, 'metona:undo', { callId: record.call_id });
        },
      },
      h('span', { i18n: 'card.undo' }),
    );
  }

  footFor(record, awaiting) {
    const bits = [];
    // The change went ahead without an undo copy (the user allowed it); the result says why.
    if (record.status === 'success' && record.result && record.result.undo === 'unavailable') {
      // The tip in the page's language; the journal's reason (an OS or disk message) after it.
      const why = String(record.result.undoNote || '').replace(/^undo is not available:\s*/, '');
      const tip = why
        ? {
            i18nTitle: [
              'card.no_undo_why',
              { reason: undoReasonArg(record.result.card_undo_reason, why) },
            ],
          }
        : {};
      bits.push(h('span', { class: 'tc-no-undo', i18n: 'card.no_undo', ...tip }));
    }
    if (awaiting) {
      bits.push(
        h('button', {
          class: 'btn small',
          type: 'button',
          i18n: 'card.review',
          onclick: () => emit(this.el, 'metona:review', { callId: record.call_id }),
        }),
      );
    }
    return bits.length ? h('div', { class: 'tc-foot' }, bits) : null;
  }
}

/** How far a running call has got (an MCP server's progress notifications). */
function progressView(p) {
  const total = typeof p.total === 'number' && p.total > 0 ? p.total : null;
  const done = typeof p.done === 'number' ? p.done : 0;
  return h(
    'div',
    { class: 'tc-progress' },
    total ? h('progress', { max: String(total), value: String(Math.min(done, total)) }) : null,
    h('span', {
      class: 'muted',
      i18n: total ? ['card.mcp_progress', { done, total }] : null,
      text: total ? null : String(done),
    }),
    p.message ? h('span', { class: 'tc-progress-msg', text: visible(p.message) }) : null,
  );
}
