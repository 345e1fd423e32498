/**
 * What the pod logs about its membership: changes of the ring, handoffs, reclaims of removed
 * pods, sweeps that moved stranded domains, restarts, lost sessions, a superseded id and
 * background errors.
 */
import type { Membership, MembershipEvents } from '@shardline/membership';
import type { Logger } from 'pino';

type Listeners = { [K in keyof MembershipEvents]?: (...args: MembershipEvents[K]) => void };

/** Logs `membership`'s events on `log`; returns the function that stops it. */
export function logMembershipEvents(membership: Membership, log: Logger, pod: string): () => void {
  const listeners: Listeners = {
    change: (c) =>
      log.info(
        { epoch: c.epoch, joined: c.joined, left: c.left, movedFraction: c.movedFraction },
        'membership change',
      ),
    handoff: (h) => log.info(h, 'membership handoff'),
    reclaimed: (r) => log.info(r, 'membership reclaimed a removed pod'),
    swept: (r) => {
      if (r.stranded.length > 0) log.info(r, 'membership sweep moved stranded domains');
    },
    restarted: () => log.info({ pod }, 'membership: restarted inside the session'),
    'session-lost': () =>
      log.warn({ pod }, 'membership: session had expired (stalled); joined again'),
    superseded: (error) => log.fatal({ pod, code: error.code }, `${error.code}: ${error.message}`),
    error: (error) => log.warn({ err: error }, 'membership error (retried)'),
  };
  const entries = Object.entries(listeners) as [keyof MembershipEvents, (e: Error) => void][];
  for (const [event, listener] of entries) membership.on(event as 'error', listener);
  return () => {
    for (const [event, listener] of entries) membership.off(event as 'error', listener);
  };
}
