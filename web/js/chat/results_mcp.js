// Card views of MCP tools (tray_app/mcp): the approval preview (server, tool, what the server
// says of it, the arguments) and the result (text, structured content, resources, links,
// images). All of it comes from a server we do not control: text reaches the DOM only as
// textContent (via h()), and an image only as a data: URL of a checked raster type.
import { h } from '../lib/dom.js';
import { visibleText } from '../lib/format.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The preview of an MCP call (kind "mcp"). */
export function mcpPreview(p, plainBlock) {
  const claim = p.destructive
    ? 'card.mcp_destructive'
    : p.read_only_hint
      ? 'card.mcp_read_only'
      : 'card.mcp_changes';
  return h(
    'div',
    { class: 'mcp-preview' },
    h(
      'div',
      { class: 'kv' },
      h('span', { class: 'k', i18n: 'card.mcp_server' }),
      h('code', { text: visibleText(p.server) }),
      h('span', { class: 'k', i18n: 'card.mcp_tool' }),
      h('code', { text: visibleText(p.mcp_tool) }),
    ),
    h('div', { class: p.destructive ? 'warn' : 'muted', i18n: claim }),
    h('div', { class: 'pv-label', i18n: 'card.mcp_arguments' }),
    plainBlock(p.arguments_text || '{}'),
  );
}

/** The result of an MCP call ({success, server, content, ...} from tray_app/mcp/results.py). */
export function mcpResultView(r, plainBlock) {
  const parts = [];
  if (r.content) parts.push(plainBlock(r.content));
  const images = (r.card_images || []).filter(
    (i) => IMAGE_TYPES.has(i.mime_type) && BASE64.test(i.data || ''),
  );
  if (images.length) {
    parts.push(
      h(
        'div',
        { class: 'mcp-images' },
        images.map((i) =>
          h('img', {
            class: 'mcp-image',
            src: `data:${i.mime_type};base64,${i.data}`,
            alt: i.mime_type,
            loading: 'lazy',
          }),
        ),
      ),
    );
  }
  if (r.structured !== undefined && !sameAsText(r.structured, r.content)) {
    parts.push(
      h('div', { class: 'pv-label', i18n: 'card.mcp_structured' }),
      plainBlock(JSON.stringify(r.structured, null, 2)),
    );
  }
  for (const res of r.resources || []) {
    parts.push(
      h('div', { class: 'pv-label mono', text: visibleText(res.uri || '') }),
      res.text !== undefined
        ? plainBlock(res.text)
        : h('div', { class: 'muted', text: res.blob || res.error || '' }),
    );
  }
  if ((r.resource_links || []).length) {
    parts.push(
      h('div', { class: 'pv-label', i18n: 'card.mcp_links' }),
      h(
        'ul',
        { class: 'entries' },
        r.resource_links.map((l) =>
          h(
            'li',
            { class: 'entry' },
            h('span', { class: 'entry-name', text: visibleText(l.name || l.title || l.uri || '') }),
            h('code', { class: 'muted', text: visibleText(l.uri || '') }),
          ),
        ),
      ),
    );
  }
  if ((r.images_left_out || []).length) {
    parts.push(
      h('div', { class: 'muted', i18n: ['card.mcp_left_out', { n: r.images_left_out.length }] }),
    );
  }
  if (!parts.length) parts.push(h('div', { class: 'tc-done', i18n: 'card.mcp_done' }));
  return h('div', { class: 'mcp-result' }, parts);
}

/** Whether the text already is the structured result as JSON (what most servers send: the
 * spec asks them to), so the card shows it once. Keys in any order and any spacing match. */
function sameAsText(structured, text) {
  if (typeof text !== 'string' || !/^\s*[[{]/.test(text)) return false;
  try {
    return canonical(JSON.parse(text)) === canonical(structured);
  } catch {
    return false; // not JSON, or nested too deep to compare: show both
  }
}

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
