import robotsParser from 'robots-parser';
import type { RobotsGroup } from './groups.js';

/** Origin of the synthetic robots.txt handed to robots-parser; only paths ever vary. */
const ORIGIN = 'http://robots.invalid';

/**
 * The part of the work robots-parser does right, given clean input: it merges the rules of
 * every group naming an agent, matches `*` and `$` with Google's algorithm, picks the
 * longest pattern and lets Allow win ties. We hand it a synthetic robots.txt in which every
 * group is already delimited, every agent is a bare lower-case token and every pattern is
 * canonical, and we choose the agent key ourselves, so none of its departures from RFC 9309
 * (group ends, empty groups, agent names with spaces, encoding) can show.
 */
export class GroupMatcher {
  readonly #robots: ReturnType<typeof robotsParser>;

  constructor(groups: readonly RobotsGroup[]) {
    let text = '';
    for (const group of groups) {
      for (const agent of group.agents) text += `User-agent: ${agent}\n`;
      for (const pattern of group.allow) text += `Allow: ${pattern}\n`;
      for (const pattern of group.disallow) text += `Disallow: ${pattern}\n`;
      // An empty Disallow makes robots-parser register the agent even when the group has no
      // rules, and it ends the group, so the next agents never join this one.
      text += 'Disallow:\n';
    }
    this.#robots = robotsParser(`${ORIGIN}/robots.txt`, text);
  }

  /** `path` is canonical; `agentKey` is a key that exists in the groups (or `*`). */
  isAllowed(path: string, agentKey: string): boolean {
    return this.#robots.isAllowed(ORIGIN + path, agentKey) !== false;
  }
}
