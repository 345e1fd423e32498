import { describe, expect, it } from 'vitest';
import { compileTrackingFilter, DEFAULT_TRACKING_PARAMS } from '../src/tracking-params.js';

describe('compileTrackingFilter', () => {
  const defaults = compileTrackingFilter([]);

  it.each([...DEFAULT_TRACKING_PARAMS, 'utm_source', 'utm_whatever', 'UTM_MEDIUM', 'GCLID'])(
    'drops %s',
    (name) => {
      expect(defaults(name)).toBe(true);
    },
  );

  it.each(['id', 'page', 'q', 'utm', 'xutm_source', 'gclid_x', 'ref', 'source'])(
    'keeps %s',
    (name) => {
      expect(defaults(name)).toBe(false);
    },
  );

  it('matches extra names case-insensitively and RegExps as given', () => {
    const filter = compileTrackingFilter(['SessionId', /^trk_\d+$/]);
    expect(filter('sessionid')).toBe(true);
    expect(filter('SESSIONID')).toBe(true);
    expect(filter('trk_12')).toBe(true);
    expect(filter('TRK_12')).toBe(false);
    expect(filter('trk_x')).toBe(false);
    expect(filter('fbclid')).toBe(true);
  });

  it('ignores the lastIndex of a global RegExp', () => {
    const global = /^trk/g;
    const filter = compileTrackingFilter([global]);
    // A /g RegExp tested twice in a row would answer true then false.
    expect([filter('trk1'), filter('trk2'), filter('trk3')]).toEqual([true, true, true]);
  });
});
