// The dashboard's ring (served at /dashboard-ring.js): one arc per pod sized by its keyspace
// share, and where a looked-up domain hashes to on it, with its owner.
import {
  $,
  colourOf,
  el,
  fmt,
  getJson,
  pct,
  podName,
  showDomain,
  withCrawl,
} from './dashboard-util.js';

let located = null; // last ring lookup

function point(frac, radius) {
  const a = frac * 2 * Math.PI - Math.PI / 2;
  return [120 + radius * Math.cos(a), 120 + radius * Math.sin(a)];
}

function arcPath(start, end, outer, inner) {
  const large = end - start > 0.5 ? 1 : 0;
  const [x0, y0] = point(start, outer);
  const [x1, y1] = point(end, outer);
  const [x2, y2] = point(end, inner);
  const [x3, y3] = point(start, inner);
  return `M${x0} ${y0}A${outer} ${outer} 0 ${large} 1 ${x1} ${y1}L${x2} ${y2}A${inner} ${inner} 0 ${large} 0 ${x3} ${y3}Z`;
}

/** One arc per pod, its length the pod's keyspace share: readable at any token count. */
export function drawRing(ring) {
  const g = $('ring-arcs');
  g.replaceChildren();
  g.append(
    el('svg:circle', {
      cx: 120,
      cy: 120,
      r: 88,
      fill: 'none',
      stroke: '#dfe3ea',
      'stroke-width': 36,
    }),
  );
  let at = 0;
  for (const m of ring.members) {
    const start = at;
    const end = Math.min(1, at + m.keyspaceShare);
    at = end;
    // An SVG arc cannot draw a whole circle: split runs longer than half the ring.
    const cuts =
      end - start > 0.5
        ? [
            [start, (start + end) / 2],
            [(start + end) / 2, end],
          ]
        : [[start, end]];
    for (const [s, e] of cuts) {
      const path = el('svg:path', {
        d: arcPath(s, e, 106, 70),
        fill: colourOf(m.id),
        stroke: '#fff',
        'stroke-width': 1,
        class: 'arc',
        'data-pod': m.id,
      });
      path.append(
        el(
          'svg:title',
          {},
          `${m.id}: ${pct(m.keyspaceShare)} of the keyspace, ${fmt(m.tokens)} tokens, ${fmt(m.liveDomains)} live domains`,
        ),
      );
      g.append(path);
    }
  }
  $('ring-center').textContent =
    ring.members.length === 0
      ? 'no pods'
      : `${ring.members.length} pod${ring.members.length === 1 ? '' : 's'}`;
  $('ring-sub').textContent = `epoch ${ring.epoch} · ${fmt(ring.tokenCount)} tokens`;
  $('ring-desc').textContent =
    ring.members.length === 0
      ? 'The ring has no members.'
      : ring.members
          .map(
            (m) =>
              `${m.id} owns ${pct(m.keyspaceShare)} of the keyspace and ${m.liveDomains} live domains`,
          )
          .join('; ');
  const legend = $('ring-legend');
  legend.replaceChildren(
    ...ring.members.map((m) => {
      const li = el('li');
      const name = el('span');
      name.append(
        el('span', {
          class: 'swatch',
          style: `background:${colourOf(m.id)}`,
          'aria-hidden': 'true',
        }),
        m.id,
      );
      li.append(
        name,
        el(
          'span',
          {},
          `${pct(m.keyspaceShare)} keyspace · ${fmt(m.tokens)} tokens · ${fmt(m.liveDomains)} domains`,
        ),
      );
      return li;
    }),
  );
  drawMarker();
}

function drawMarker() {
  const g = $('ring-marker');
  g.replaceChildren();
  if (!located) return;
  const colour = located.owner ? colourOf(located.owner) : '#5b6475';
  // On the outer track only: the arcs inside are shares, not positions.
  const [x0, y0] = point(located.position, 109);
  const [x1, y1] = point(located.position, 119);
  g.append(
    el('svg:line', {
      x1: x0,
      y1: y0,
      x2: x1,
      y2: y1,
      stroke: '#1d2330',
      'stroke-width': 5,
      'stroke-linecap': 'round',
    }),
  );
  g.append(
    el('svg:line', {
      x1: x0,
      y1: y0,
      x2: x1,
      y2: y1,
      stroke: colour,
      'stroke-width': 3,
      'stroke-linecap': 'round',
      'data-domain': located.domain,
    }),
  );
}

export async function locate(domain) {
  try {
    located = await getJson(withCrawl(`/v1/ring/locate?domain=${encodeURIComponent(domain)}`));
    drawMarker();
    const found = $('ring-found');
    found.replaceChildren(
      `${located.domain} hashes to ${pct(located.position)} of the ring → `,
      located.owner ? podName(located.owner) : 'no owner (no live pod)',
      ' ',
    );
    const open = el('button', { type: 'button', class: 'link' }, 'open its page');
    open.addEventListener('click', () => showDomain(located.domain));
    found.append(open);
  } catch (error) {
    located = null;
    drawMarker();
    $('ring-found').textContent = error.message;
  }
}
