// The dashboard's script (served at /dashboard.js, an ES module): polls the /v1 routes and draws.
import { refreshDomain, requeue, route } from './dashboard-domain.js';
import { drawRing, locate } from './dashboard-ring.js';
import {
  $,
  colourOf,
  domainLink,
  el,
  emptyRow,
  fmt,
  getJson,
  pct,
  podName,
  rate,
  reasonText,
  row,
  STATUS_TEXT,
  setCrawl,
  withCrawl,
} from './dashboard-util.js';

const POLL_MS = 2000;
const HISTORY_MS = 5 * 60 * 1000;
const ERROR_PALETTE = [
  '#b42318',
  '#e07b00',
  '#7b52c7',
  '#0b8fb0',
  '#c0398f',
  '#5b6475',
  '#b8a300',
  '#1a9a6a',
];
const errorColours = new Map();
const history = []; // { t, total, pods: Map(pod → rate), errors: Map(code → rate) }
let previous = null; // { t, fetched, pods: Map(pod → fetched), errors: Map(code → count) }
let refreshes = 0;

function errorColourOf(code) {
  if (!errorColours.has(code))
    errorColours.set(code, ERROR_PALETTE[errorColours.size % ERROR_PALETTE.length]);
  return errorColours.get(code);
}

const SOURCES = {
  registry: 'Membership from the pod registry',
  'frontier-pods': 'No pod has joined the registry: pods seen in the frontier counters stand in',
  static: 'Fixed membership (--pods)',
};
const POD_STATES = { alive: 'alive', expired: 'down (session expired)', departed: 'departed' };

/** The non-zero fault counts a pod reported (any kind, as named in its stats().faults). */
function faultsCell(faults) {
  const bad = Object.entries(faults ?? {}).filter(([, n]) => n > 0);
  if (bad.length === 0) return { text: '–', cls: 'text' };
  return { text: bad.map(([kind, n]) => `${kind} ${fmt(n)}`).join(', '), cls: 'text down' };
}

/** A banner for what stops a crawl: the frontier lost under the pods. */
function drawAlert(stats) {
  const alert = $('alert');
  const lost = stats.frontierLost;
  alert.hidden = !lost;
  if (lost) {
    alert.textContent = `SHARDLINE_ERR_FRONTIER_LOST: pod ${lost.pod} found the frontier lost at ${new Date(lost.atMs).toLocaleString('en-GB')} (Redis lost its data: restarted without persistence, or flushed). What Redis holds now is not the crawl that was running; see docs/operations.md, Faults.`;
  }
}

function drawPods(pods, rates) {
  $('pods-membership').textContent =
    `${SOURCES[pods.membership] ?? pods.membership}, epoch ${pods.epoch}.`;
  const body = $('pods-table').tBodies[0];
  if (pods.pods.length === 0) return emptyRow(body, 'No pods yet.', 11);
  body.replaceChildren(
    ...pods.pods.map((p) => {
      const tr = row([
        { node: podName(p.id) },
        { text: POD_STATES[p.state] ?? p.state, cls: p.state === 'alive' ? '' : 'down' },
        { text: p.member ? String(p.weight) : '–' },
        { text: pct(p.keyspaceShare) },
        { text: fmt(p.ownedDomains) },
        { text: fmt(p.dueHosts) },
        { text: fmt(p.backlogHosts) },
        { text: fmt(p.counters.inFlight ?? 0) },
        { text: fmt(p.counters.fetched ?? 0) },
        { text: p.state === 'alive' ? rate(rates.get(p.id)) : '–' },
        faultsCell(p.faults),
      ]);
      tr.dataset.pod = p.id;
      tr.dataset.state = p.state;
      return tr;
    }),
  );
}

function drawDomains(domains) {
  const body = $('domains-table').tBodies[0];
  if (domains.items.length === 0) return emptyRow(body, 'No domains queued.', 8);
  body.replaceChildren(
    ...domains.items.map((d) => {
      const tr = row([
        { node: domainLink(d.domain), cls: 'name' },
        { node: d.owner ? podName(d.owner) : el('span', {}, '–') },
        { text: fmt(d.queued) },
        { text: fmt(d.inFlight) },
        { text: fmt(d.fetched) },
        { text: fmt(d.failed) },
        { text: fmt(d.dead) },
        { text: STATUS_TEXT[d.status] ?? d.status, cls: `status-${d.status}` },
      ]);
      tr.dataset.domain = d.domain;
      return tr;
    }),
  );
}

function drawDead(dead) {
  const body = $('dead-table').tBodies[0];
  if (dead.items.length === 0) return emptyRow(body, 'No dead letters.', 5);
  body.replaceChildren(
    ...dead.items.map((l) =>
      row([
        { node: domainLink(l.domain) },
        { text: l.url, cls: 'text head-url', title: l.url },
        { text: reasonText(l), cls: 'text head-url', title: reasonText(l) },
        { text: l.status ? String(l.status) : '–' },
        { text: String(l.attempt) },
      ]),
    ),
  );
}

function errorCounts(counters) {
  const out = new Map();
  for (const [field, n] of Object.entries(counters))
    if (field.startsWith('error:')) out.set(field.slice(6), n);
  return out;
}

function sample(stats, pods) {
  const now = {
    t: stats.timeMs,
    fetched: stats.fetched,
    pods: new Map(pods.pods.map((p) => [p.id, p.counters.fetched ?? 0])),
    errors: errorCounts(stats.counters),
  };
  const rates = new Map();
  let total;
  if (previous && now.t > previous.t) {
    const dt = (now.t - previous.t) / 1000;
    total = Math.max(0, (now.fetched - previous.fetched) / dt);
    for (const [pod, fetched] of now.pods)
      rates.set(pod, Math.max(0, (fetched - (previous.pods.get(pod) ?? fetched)) / dt));
    const errors = new Map();
    for (const [code, n] of now.errors)
      errors.set(code, Math.max(0, (n - (previous.errors.get(code) ?? 0)) / dt));
    history.push({ t: now.t, total, pods: rates, errors });
    while (history.length > 0 && history[0].t < now.t - HISTORY_MS) history.shift();
  }
  previous = now;
  return { rates, total, errors: now.errors };
}

/** Lines over the shared sample history: `series` = [{ label, colour, width, value(h) }]. */
function drawLines(svg, series) {
  const width = svg.clientWidth || 600;
  const height = svg.clientHeight || 200;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  for (const node of [...svg.childNodes]) if (node.nodeName !== 'title') node.remove();
  const left = 44,
    right = 10,
    top = 10,
    bottom = 22;
  const now = history.length ? history[history.length - 1].t : Date.now();
  // The window grows from 1 minute to 5 as samples accumulate, so a young page is readable.
  const span = Math.min(HISTORY_MS, Math.max(60000, history.length ? now - history[0].t : 0));
  const max = Math.max(1, ...series.flatMap((s) => history.map((h) => s.value(h))));
  const x = (t) => left + ((t - (now - span)) / span) * (width - left - right);
  const y = (v) => top + (1 - v / max) * (height - top - bottom);
  svg.append(el('svg:line', { x1: left, x2: width - right, y1: y(0), y2: y(0), class: 'axis' }));
  svg.append(el('svg:line', { x1: left, x2: left, y1: top, y2: y(0), class: 'axis' }));
  for (const v of [0, max / 2, max]) {
    svg.append(
      el(
        'svg:text',
        { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' },
        v < 10 ? v.toFixed(1) : Math.round(v),
      ),
    );
  }
  const ticks = width < 360 ? 2 : 5;
  for (let i = ticks; i >= 0; i--) {
    const ago = (span * i) / ticks;
    const label =
      i === 0
        ? 'now'
        : ago < 120000
          ? `-${Math.round(ago / 1000)}s`
          : `-${(ago / 60000).toFixed(1).replace(/\.0$/, '')}m`;
    svg.append(
      el(
        'svg:text',
        {
          x: x(now - ago),
          y: height - 6,
          'text-anchor': i === ticks ? 'start' : i === 0 ? 'end' : 'middle',
          class: 'tick',
        },
        label,
      ),
    );
  }
  if (history.length < 2 || series.length === 0) {
    svg.append(
      el(
        'svg:text',
        { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'tick' },
        history.length < 2 ? 'collecting samples…' : 'no errors',
      ),
    );
    return;
  }
  for (const s of series) {
    const d = history
      .map((h, i) => `${i ? 'L' : 'M'}${x(h.t).toFixed(1)} ${y(s.value(h)).toFixed(1)}`)
      .join('');
    const path = el('svg:path', {
      d,
      fill: 'none',
      stroke: s.colour,
      'stroke-width': s.width,
      'stroke-linejoin': 'round',
      'data-series': s.label,
    });
    path.append(el('svg:title', {}, s.label));
    svg.append(path);
  }
}

function drawCharts(errorTotals) {
  const pods = new Set(history.flatMap((h) => [...h.pods.keys()]));
  drawLines($('chart'), [
    ...[...pods].map((pod) => ({
      label: pod,
      colour: colourOf(pod),
      width: 1.5,
      value: (h) => h.pods.get(pod) ?? 0,
    })),
    { label: 'all pods', colour: '#1d2330', width: 2.5, value: (h) => h.total },
  ]);
  const codes = [...errorTotals.keys()].sort();
  drawLines(
    $('errors-chart'),
    codes.map((code) => ({
      label: code,
      colour: errorColourOf(code),
      width: 2,
      value: (h) => h.errors.get(code) ?? 0,
    })),
  );
  const legend = $('errors-legend');
  if (codes.length === 0) {
    legend.replaceChildren(el('li', { class: 'note' }, 'No failed attempts.'));
    return;
  }
  legend.replaceChildren(
    ...codes.map((code) => {
      const li = el('li', { 'data-code': code });
      li.append(
        el('span', {
          class: 'swatch',
          style: `background:${errorColourOf(code)}`,
          'aria-hidden': 'true',
        }),
        `${code.replace(/^SHARDLINE_ERR_/, '')} ${fmt(errorTotals.get(code))}`,
      );
      li.title = code;
      return li;
    }),
  );
}

/**
 * The crawl selector's options: every crawl, the selected one kept while it exists. A crawl
 * deleted while shown goes back to the default one: its reads would answer 404 for good.
 */
function drawCrawls({ crawls }) {
  const select = $('crawl');
  const ids = crawls.map((c) => c.crawlId);
  if (select.dataset.ids === ids.join(',')) return;
  const chosen = select.value;
  if (chosen && !ids.includes(chosen)) setCrawl('default');
  select.replaceChildren(
    ...crawls.map((c) =>
      el(
        'option',
        { value: c.crawlId },
        c.state === 'deleting' ? `${c.crawlId} (deleting)` : c.crawlId,
      ),
    ),
  );
  select.value = ids.includes(chosen) ? chosen : 'default';
  select.dataset.ids = ids.join(',');
}

async function refresh() {
  try {
    // The crawls first: the one shown may be gone, and the reads below follow the selector.
    drawCrawls(await getJson('/v1/crawls'));
    const [stats, ring, pods, domains, dead] = await Promise.all([
      getJson(withCrawl('/v1/stats')),
      getJson(withCrawl('/v1/ring')),
      getJson(withCrawl('/v1/pods')),
      getJson(withCrawl('/v1/domains?sort=depth&limit=10')),
      getJson(withCrawl('/v1/dead-letters?limit=20')),
    ]);
    for (const m of ring.members) colourOf(m.id);
    const { rates, total, errors } = sample(stats, pods);
    $('t-queued').textContent = fmt(stats.queued);
    $('t-inflight').textContent = fmt(stats.inFlight);
    $('t-fetched').textContent = fmt(stats.fetched);
    $('t-failed').textContent = fmt(stats.failed);
    $('t-dead').textContent = fmt(stats.dead);
    $('t-domains').textContent = fmt(stats.domains);
    $('t-pods').textContent = `${stats.pods} (${stats.livePods})`;
    $('t-rate').textContent = rate(total);
    drawAlert(stats);
    drawRing(ring);
    drawPods(pods, rates);
    drawDomains(domains);
    drawDead(dead);
    drawCharts(errors);
    await refreshDomain();
    refreshes++;
    document.body.dataset.refreshes = String(refreshes);
    $('status').className = 'live';
    $('status').textContent = `live · updated ${new Date().toLocaleTimeString('en-GB')}`;
  } catch (error) {
    $('status').className = 'stale';
    $('status').textContent = `stale · ${error.message}`;
  } finally {
    setTimeout(refresh, POLL_MS);
  }
}

$('crawl').addEventListener('change', () => {
  setCrawl($('crawl').value);
  $('status').textContent = `loading crawl ${$('crawl').value}…`;
});
$('token').value = sessionStorage.getItem('shardline-token') ?? '';
$('token').addEventListener('change', () =>
  sessionStorage.setItem('shardline-token', $('token').value.trim()),
);
$('ring-find').addEventListener('submit', (event) => {
  event.preventDefault();
  const domain = $('ring-query').value.trim();
  if (domain) locate(domain);
});
$('domain-back').addEventListener('click', () => {
  location.hash = '';
});
$('requeue').addEventListener('click', () => requeue());
window.addEventListener('hashchange', route);
route();
refresh();
