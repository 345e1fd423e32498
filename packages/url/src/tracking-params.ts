/**
 * Query parameters that only identify a campaign, a click or a visitor and never change
 * what the server returns. Compared lower-cased. Names whose meaning is ambiguous on
 * ordinary sites (`ref`, `source`, `si`, `spm`) are deliberately absent: dropping a
 * functional parameter loses pages, keeping a tracking one only costs a duplicate fetch.
 */
export const DEFAULT_TRACKING_PARAMS: readonly string[] = Object.freeze([
  // Google Ads / Analytics / Search
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  '_ga',
  '_gl',
  'srsltid',
  // Meta, Microsoft, Yandex, Instagram, TikTok, Twitter/X, LinkedIn
  'fbclid',
  'msclkid',
  'yclid',
  'igshid',
  'ttclid',
  'twclid',
  'li_fat_id',
  // Mailchimp, HubSpot, Marketo, Vero, Olytics, Adobe, Pinterest
  'mc_eid',
  'mc_cid',
  '_hsenc',
  '_hsmi',
  '__hssc',
  '__hstc',
  '__hsfp',
  'hsctatracking',
  'mkt_tok',
  'vero_id',
  'vero_conv',
  'oly_anon_id',
  'oly_enc_id',
  's_cid',
  'epik',
  '_openstat',
]);

/** Every parameter whose lower-cased name starts with this is tracking (`utm_source`). */
const TRACKING_PREFIX = 'utm_';

/** Decides, by name, whether a query parameter is dropped. */
export type ParamFilter = (name: string) => boolean;

/**
 * Builds the predicate for the default list plus `extra`. `extra` strings match the lower-cased
 * name exactly; RegExps are tested against the name as it appears in the canonical
 * URL (after percent normalisation). `g`/`y` flags are dropped so that a shared RegExp's
 * `lastIndex` cannot make the answer depend on the previous call.
 */
export function compileTrackingFilter(extra: readonly (string | RegExp)[]): ParamFilter {
  const names = new Set<string>(DEFAULT_TRACKING_PARAMS);
  const patterns: RegExp[] = [];
  for (const item of extra) {
    if (typeof item === 'string') names.add(item.toLowerCase());
    else patterns.push(new RegExp(item.source, item.flags.replace(/[gy]/g, '')));
  }
  return (name) => {
    const lower = name.toLowerCase();
    if (lower.startsWith(TRACKING_PREFIX)) return true;
    if (names.has(lower)) return true;
    for (const pattern of patterns) {
      if (pattern.test(name)) return true;
    }
    return false;
  };
}
