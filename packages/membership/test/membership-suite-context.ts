/**
 * What every topic of the membership integration suite (membership-suite-*.ts) builds its
 * tests from. One per backend, made by describeMembership in membership-suite.ts.
 */
import type { Fleet } from './harness.js';

/** Fleet's constructor arguments after the connection, which the suite's backend supplies. */
export type FleetArgs =
  ConstructorParameters<typeof Fleet> extends [unknown, ...infer R] ? R : never;

export interface MembershipSuite {
  /** A fleet on the suite's backend, closed once the suite's tests are done. */
  fleet: (...args: FleetArgs) => Fleet;
}

export const urls = (domains: string[]) => domains.map((d) => `https://${d}/`);
