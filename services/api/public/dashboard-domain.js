// The dashboard's domain page (served at /dashboard-domain.js, loaded before dashboard.js,
// whose helpers it calls): #domain=<name> opens it; it shows /v1/domains/{d}/inspect and
// requeues the domain's dead letters with the token from the header.
import {
  $,
  el,
  emptyRow,
  fmt,
  getJson,
  ms,
  pct,
  podName,
  reasonText,
  row,
  STATUS_TEXT,
  withCrawl,
} from './dashboard-util.js';

// The domain whose page is open (from location.hash), or null.
let openDomainName = null;

function fact(label, value, id) {
  const div = el('div');
  div.append(el('dt', {}, label));
  const dd = el('dd', id ? { id } : {});
  if (typeof value === 'string') dd.textContent = value;
  else dd.append(value);
  div.append(dd);
  return div;
}

/** What holds every host of the domain back besides politeness: a block, a spent budget. */
function holdFacts(c, nowMs) {
  const facts = [];
  if (c.blockedUntilMs > nowMs) {
    facts.push(fact('Blocked until', new Date(c.blockedUntilMs).toISOString(), 'domain-blocked'));
  }
  if (c.budgetSpent > 0) {
    const spent =
      c.budgetRefillAtMs > nowMs
        ? `; spent until ${new Date(c.budgetRefillAtMs).toISOString()}`
        : '';
    facts.push(
      fact('Budget', `${fmt(c.budgetSpent)} claimed this window${spent}`, 'domain-budget'),
    );
  }
  return facts;
}

function drawDomainPage(d) {
  $('domain-name').textContent = d.domain;
  const status = el('span', { class: `status-${d.status}` }, STATUS_TEXT[d.status] ?? d.status);
  const c = d.counters;
  $('domain-facts').replaceChildren(
    fact('Status', status, 'domain-status'),
    fact('Owner', d.owner ? podName(d.owner) : '–', 'domain-owner'),
    fact('Ring position', `${pct(d.position)} (epoch ${d.epoch})`),
    fact('Queued', fmt(c.queued), 'domain-queued'),
    fact('In flight', fmt(c.inFlight)),
    fact('Fetched', fmt(c.fetched)),
    fact('Failed attempts', fmt(c.failed)),
    fact('Dead letters', fmt(d.deadLettersKept), 'domain-dead'),
    fact('Hosts', fmt(d.hostCount)),
    ...holdFacts(c, d.timeMs),
  );
  const hosts = $('domain-hosts').tBodies[0];
  if (d.hosts.length === 0) emptyRow(hosts, 'No hosts.', 9);
  else
    hosts.replaceChildren(
      ...d.hosts.map((h) => {
        const wait = h.state.nextAllowedAtMs - d.timeMs;
        const tr = row([
          { text: h.host },
          { text: fmt(h.state.queued) },
          { text: fmt(h.state.inFlight) },
          { text: wait > 0 ? `in ${ms(wait)}` : 'now' },
          { text: ms(h.state.delayMs) },
          { text: h.state.crawlDelayMs ? ms(h.state.crawlDelayMs) : '–' },
          {
            text: h.state.backoffMs ? ms(h.state.backoffMs) : '–',
            cls: h.state.backoffMs ? 'status-backing-off' : '',
          },
          {
            text: String(h.state.consecutiveFailures),
            cls: h.state.consecutiveFailures ? 'status-failing' : '',
          },
          {
            text: h.head ? h.head.url : '–',
            cls: 'text head-url',
            title: h.head
              ? `${h.head.url} (priority ${h.head.priority}, depth ${h.head.depth}, attempt ${h.head.attempt + 1})`
              : '',
          },
        ]);
        tr.dataset.host = h.host;
        return tr;
      }),
    );
  const robots = d.hosts.filter((h) => h.robots);
  $('domain-robots').textContent =
    robots.length === 0
      ? "No robots.txt record cached for these hosts (not fetched yet, expired, or the API has no access to the pods' cache)."
      : robots
          .map(
            (h) =>
              `${h.robots.origin}: fetched ${new Date(h.robots.fetchedAtMs).toLocaleString('en-GB')}, expires ${new Date(h.robots.expiresAtMs).toLocaleString('en-GB')}${h.robots.unreachable ? `, unreachable ×${h.robots.unreachable}` : ''}, ${(h.robots.robots?.groups ?? []).length} group(s)`,
          )
          .join(' · ');
  const dead = $('domain-letters').tBodies[0];
  if (d.deadLetters.length === 0) emptyRow(dead, 'No dead letters.', 5);
  else
    dead.replaceChildren(
      ...d.deadLetters.map((l) =>
        row([
          { text: l.url, cls: 'text head-url', title: l.url },
          { text: reasonText(l), cls: 'text head-url', title: reasonText(l) },
          { text: l.status ? String(l.status) : '–' },
          { text: String(l.attempt) },
          { text: new Date(l.atMs).toLocaleTimeString('en-GB') },
        ]),
      ),
    );
  $('requeue').disabled = d.deadLettersKept === 0;
  const owners = $('domain-owners');
  if (d.ownerHistory.length === 0)
    owners.replaceChildren(
      el('li', {}, 'No ring history recorded (fixed membership, or no pod has joined).'),
    );
  else
    owners.replaceChildren(
      ...d.ownerHistory.map((o) => {
        const li = el('li');
        li.append(`epoch ${o.epoch}: `, o.owner ? podName(o.owner) : 'no owner');
        return li;
      }),
    );
}

export async function refreshDomain() {
  if (!openDomainName) return;
  try {
    drawDomainPage(
      await getJson(withCrawl(`/v1/domains/${encodeURIComponent(openDomainName)}/inspect`)),
    );
  } catch (error) {
    $('domain-facts').replaceChildren(fact('Error', error.message));
  }
}

export function route() {
  const m = /^#domain=(.+)$/.exec(location.hash);
  openDomainName = m ? decodeURIComponent(m[1]) : null;
  $('domain-page').hidden = !openDomainName;
  $('requeue-result').textContent = '';
  if (openDomainName) {
    $('domain-name').textContent = openDomainName;
    window.scrollTo(0, 0);
    refreshDomain();
  }
}

export async function requeue() {
  const token = $('token').value.trim();
  const result = $('requeue-result');
  if (!token) {
    result.textContent = 'enter the API token first (top right)';
    return;
  }
  const response = await fetch(
    withCrawl(`/v1/domains/${encodeURIComponent(openDomainName)}/dead-letters/requeue`),
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    },
  );
  const body = await response.json().catch(() => ({}));
  result.textContent = response.ok
    ? `requeued ${fmt(body.requeued)}`
    : `refused: ${body.message ?? response.status}`;
  result.dataset.outcome = response.ok ? 'ok' : 'refused';
  await refreshDomain();
}
