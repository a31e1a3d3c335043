// Card views of the git tools: status, diff, log, commit, and git_commit's approval preview.
// File names, messages and authors come from the repository: untrusted, textContent only (h()).
import { h } from '../lib/dom.js';
import { visibleText } from '../lib/format.js';

/** "M  a.txt", "?? new.txt", "R  old → new": one status line as git's two letters and the name. */
function statusLine(f) {
  const letters = `${f.staged || ' '}${f.unstaged || ' '}`;
  const name = f.from ? `${f.from} → ${f.path}` : f.path;
  return `${letters} ${name}`;
}

/** "+3 −1 path" per file, a new file as "new". */
function statLines(files) {
  return (files || []).map((f) =>
    f.new
      ? `new  +${f.added ?? '?'}  ${f.path}`
      : f.added == null
        ? `bin  ${f.path}`
        : `+${f.added} −${f.deleted}  ${f.path}`,
  );
}

function totals(r) {
  return h('span', {
    i18n: [
      'card.git_totals',
      { n: r.file_count ?? (r.files || []).length, a: r.added ?? 0, d: r.deleted ?? 0 },
    ],
  });
}

/** The result view for a git tool, or undefined for any other tool. */
export function gitResultView(name, r, { diffView, plainBlock }) {
  switch (name) {
    case 'git_status':
      return h(
        'div',
        {},
        h(
          'div',
          { class: 'tc-meta' },
          r.branch ? h('code', { class: 'mono', text: visibleText(r.branch) }) : null,
          ' ',
          h('span', {
            i18n: r.clean ? 'card.git_clean' : ['card.git_changed', { n: r.total ?? 0 }],
          }),
          r.truncated ? h('span', { class: 'warn', i18n: 'card.truncated' }) : null,
        ),
        r.clean ? null : plainBlock((r.files || []).map(statusLine).join('\n'), 'git-status'),
      );
    case 'git_diff':
      return h(
        'div',
        {},
        r.diff ? diffView(r.diff) : h('div', { class: 'muted', i18n: 'card.git_no_diff' }),
        h(
          'div',
          { class: 'tc-meta' },
          totals(r),
          r.truncated ? h('span', { class: 'warn', i18n: 'card.truncated' }) : null,
        ),
        (r.withheld || []).length
          ? h('div', {
              class: 'tc-meta warn git-withheld',
              i18n: ['card.git_withheld', { list: r.withheld.map(visibleText).join(', ') }],
            })
          : null,
      );
    case 'git_log':
      return (r.commits || []).length
        ? plainBlock(
            r.commits
              .map(
                (c) =>
                  `${String(c.commit).slice(0, 10)}  ${c.date.slice(0, 10)}  ${c.author}  ${c.subject}`,
              )
              .join('\n'),
            'git-log',
          )
        : h('div', { class: 'muted', i18n: 'card.git_no_commits' });
    case 'git_commit':
      return h(
        'div',
        {},
        h(
          'div',
          { class: 'tc-done' },
          h('span', { i18n: 'card.git_committed' }),
          ' ',
          h('code', { class: 'mono', text: String(r.commit || '').slice(0, 10) }),
          ' ',
          h('span', { text: visibleText(r.subject || '') }),
        ),
        h('div', { class: 'tc-meta' }, totals(r), h('span', { i18n: 'card.git_no_hooks' })),
      );
    default:
      return undefined;
  }
}

/** git_commit's approval: where, the message as it will be stored, and what it holds. */
export function gitCommitPreview(p, plainBlock) {
  const rows = statLines(p.files);
  const secrets = (p.files || []).filter((f) => f.secret).map((f) => visibleText(f.path));
  const more = (p.file_count ?? rows.length) - rows.length;
  return h(
    'div',
    { class: 'git-preview' },
    h(
      'div',
      { class: 'kv' },
      h('span', { class: 'k', i18n: 'card.git_repository' }),
      h('code', { class: 'mono', text: visibleText(p.path || '') }),
      ' ',
      h('code', { class: 'mono', text: visibleText(p.branch || '') }),
    ),
    h('div', { class: 'pv-label', i18n: 'card.git_message' }),
    h('pre', { class: 'plain git-message', text: visibleText(p.message || '') }),
    h('div', { class: 'pv-label' }, totals(p)),
    rows.length
      ? plainBlock(rows.join('\n') + (more > 0 ? `\n… +${more}` : ''), 'git-files')
      : null,
    secrets.length
      ? h('div', {
          class: 'warn git-secrets',
          i18n: ['card.git_secret_files', { list: secrets.join(', ') }],
        })
      : null,
    h('div', { class: 'muted', i18n: 'card.git_no_hooks' }),
  );
}
