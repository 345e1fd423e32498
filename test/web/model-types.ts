/**
 * The shapes of the generated web: resources, hosts and the whole model. They sit apart
 * from the generator (model.ts, which re-exports the ones used elsewhere) so each file fits
 * in a head; the server and the ground truth read these shapes, only the generator fills them.
 */
import type { HostBehaviour } from './behaviours.js';
import type { ResolvedTestWebOptions } from './options.js';
import type { LinkSpec } from './render.js';
import type { RobotsResponse } from './robots-files.js';

/** An HTML page (200, or 500 for `error-500`). */
export interface HtmlResource {
  kind: 'html';
  status: 200 | 500;
  contentType: string;
  body: Buffer;
  links: readonly LinkSpec[];
  /** The `<base href>` the page declares. */
  baseHref?: string;
  /** The robots meta directive (lower-cased) or X-Robots-Tag header value. */
  metaRobots?: string;
  xRobotsTag?: string;
  /** Answer only after this long. */
  delayMs?: number;
  /** Trickle the body over this long. */
  dripMs?: number;
  /** Stream filler after `body` until the response is this many bytes. */
  padToBytes?: number;
  /** The first `count` GETs of each URL of this page fail with `status` and `Retry-After`. */
  failFirst?: { count: number; status: 429 | 503; retryAfterS: number };
}

/** A redirect; `location` is written verbatim into the header (may be relative). */
export interface RedirectResource {
  kind: 'redirect';
  status: 301 | 302 | 307 | 308;
  location: string;
}

/** A non-HTML body. */
export interface FileResource {
  kind: 'file';
  contentType: string;
  body: Buffer;
}

export type Resource = HtmlResource | RedirectResource | FileResource;

/** One virtual host. */
export interface HostModel {
  /** e.g. `site3.test` or `blog.site3.test`. */
  name: string;
  /** For subdomain hosts, the `siteN.test` they hang off. */
  parent?: string;
  behaviours: readonly HostBehaviour[];
  /** Generated pages including `/` (`/p/1` … `/p/{pageCount-1}`). */
  pageCount: number;
  robots: RobotsResponse;
  /** Path (as sent on the wire, percent-encoded) → resource. Query strings are ignored. */
  resources: Map<string, Resource>;
  /** Paths served only so a crawler that wrongly follows a link gets caught fetching them. */
  traps: string[];
}

/** The whole generated web. */
export interface WebModel {
  readonly port: number;
  readonly options: ResolvedTestWebOptions;
  /** Every host, site hosts first in numeric order, then subdomains. */
  readonly hosts: Map<string, HostModel>;
  /** `site1.test` … `siteN.test`. */
  readonly siteHosts: readonly string[];
  origin(host: string): string;
  /** The resource at `pathname` (no query) on `host`, or undefined (404). */
  lookup(host: string, pathname: string): Resource | undefined;
}
