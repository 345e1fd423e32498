// Helpers shared by the dashboard's modules (served at /dashboard-util.js).

export const PALETTE = [
  '#2457c5',
  '#e07b00',
  '#1a9a6a',
  '#c0398f',
  '#7b52c7',
  '#b8a300',
  '#0b8fb0',
  '#c2410c',
  '#5b6475',
  '#8a5a2b',
];
export const SVG = 'http://www.w3.org/2000/svg';
export const colours = new Map();
export const $ = (id) => document.getElementById(id);
export const fmt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const pct = (f) => `${(f * 100).toFixed(1)}%`;
export const rate = (r) => (r === undefined ? '–' : `${r < 10 ? r.toFixed(2) : r.toFixed(1)}/s`);
export const ms = (v) =>
  v === null || v === undefined
    ? 'default'
    : v >= 1000
      ? `${(v / 1000).toFixed(v % 1000 ? 1 : 0)} s`
      : `${v} ms`;

export function colourOf(pod) {
  if (!colours.has(pod)) colours.set(pod, PALETTE[colours.size % PALETTE.length]);
  return colours.get(pod);
}

export function el(tag, attrs = {}, text) {
  const node = tag.startsWith('svg:')
    ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    // Through the CSSOM: the page's CSP refuses style attributes.
    if (k === 'style') node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

// The crawl the page shows ('' = the default crawl): reads carry it as ?crawl=.
let crawl = '';

export function setCrawl(id) {
  crawl = id === 'default' ? '' : id;
}

/** `path` with the selected crawl as `?crawl=` (nothing for the default crawl). */
export function withCrawl(path) {
  if (!crawl) return path;
  return `${path}${path.includes('?') ? '&' : '?'}crawl=${encodeURIComponent(crawl)}`;
}

export async function getJson(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(`${path}: ${body.message ?? `HTTP ${response.status}`}`);
  }
  return response.json();
}

/** A dead letter's reason with its message: what the operator needs to act on. */
export function reasonText(letter) {
  return letter.message ? `${letter.reason}: ${letter.message}` : letter.reason;
}

export function row(cells) {
  const tr = el('tr');
  for (const cell of cells) {
    const td = el('td', cell.cls ? { class: cell.cls } : {});
    if (cell.node) td.append(cell.node);
    else td.textContent = cell.text;
    if (cell.title) td.title = cell.title;
    tr.append(td);
  }
  return tr;
}

export function emptyRow(body, text, span) {
  body.replaceChildren(row([{ text, cls: 'empty' }]));
  body.rows[0].cells[0].colSpan = span;
}

export function podName(id) {
  const span = el('span');
  span.append(
    el('span', { class: 'swatch', style: `background:${colourOf(id)}`, 'aria-hidden': 'true' }),
    id,
  );
  return span;
}

export function domainLink(domain) {
  const button = el('button', { type: 'button', class: 'link', 'data-domain': domain }, domain);
  button.addEventListener('click', () => showDomain(domain));
  return button;
}

export const STATUS_TEXT = {
  active: 'active',
  'backing-off': 'backing off',
  failing: 'failing',
  paused: 'paused',
  idle: 'idle',
};

/** Opens a domain's page (dashboard-domain.js listens to the hash). */
export function showDomain(domain) {
  location.hash = `domain=${encodeURIComponent(domain)}`;
}
