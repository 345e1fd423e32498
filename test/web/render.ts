/** Renders model pages as small byte strings, once, when the web starts. */

/** A link as written in a page. */
export interface LinkSpec {
  /** The `href` attribute exactly as written (relative, absolute, with fragments …). */
  href: string;
  /** `rel` attribute, e.g. `'nofollow'`. */
  rel?: string;
}

/** What goes into one HTML page. */
export interface PageContent {
  title: string;
  links: readonly LinkSpec[];
  baseHref?: string;
  /** `<meta name=…>` robots directive; `metaName` defaults to `robots`. */
  metaRobots?: string;
  metaName?: string;
  /** Body text; may hold non-ASCII characters (encoded per `charset`). */
  text?: string;
  /** `'latin1'` encodes the page as ISO-8859-1; `declareMeta` adds `<meta charset>`. */
  charset?: 'utf8' | 'latin1';
  declareMeta?: boolean;
  /** Leave the document open (the huge page streams filler after it). */
  open?: boolean;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** Renders a page; the result is encoded in the page's charset. */
export function renderPage(page: PageContent): Buffer {
  const head: string[] = [];
  if (page.declareMeta) head.push('<meta charset="iso-8859-1">');
  if (page.metaRobots !== undefined) {
    head.push(
      `<meta name="${page.metaName ?? 'robots'}" content="${escapeAttr(page.metaRobots)}">`,
    );
  }
  if (page.baseHref !== undefined) head.push(`<base href="${escapeAttr(page.baseHref)}">`);
  const items = page.links.map((link, i) => {
    const rel = link.rel === undefined ? '' : ` rel="${escapeAttr(link.rel)}"`;
    return `<li><a href="${escapeAttr(link.href)}"${rel}>link ${i + 1}</a></li>`;
  });
  const text = page.text === undefined ? '' : `<p>${escapeText(page.text)}</p>`;
  const html =
    `<!doctype html><html><head>${head.join('')}<title>${escapeText(page.title)}</title></head>` +
    `<body><h1>${escapeText(page.title)}</h1>${text}<ul>${items.join('')}</ul>` +
    (page.open ? '' : '</body></html>\n');
  return Buffer.from(html, page.charset === 'latin1' ? 'latin1' : 'utf8');
}

/** A valid 1×1 transparent PNG. */
export const PNG_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A minimal PDF whose text mentions a URL; crawlers must not treat it as HTML. */
export const PDF_DOC = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n' +
    '2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n' +
    '% <a href="/hidden/in-pdf">not a link</a>\n' +
    'trailer<</Root 1 0 R>>\n%%EOF\n',
  'latin1',
);
