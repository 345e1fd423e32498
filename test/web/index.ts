/**
 * The test web: many virtual hosts on one loopback HTTP server, with deterministic link
 * graphs, hostile behaviours and a ground truth. See README.md.
 */

export { createTestWebAgent, type TestWebAgentOptions } from './agent.js';
export type { PolitenessOptions, PolitenessViolation, RequestLogEntry } from './analysis.js';
export type { HostBehaviour, PageBehaviour, RobotsBehaviour } from './behaviours.js';
export { ALL_BEHAVIOURS, PAGE_BEHAVIOURS, ROBOTS_BEHAVIOURS } from './behaviours.js';
export { TestWebOptionsError } from './errors.js';
export type { GroundTruth, GroundTruthOptions } from './ground-truth.js';
export type { HostModel, Resource, WebModel } from './model.js';
export type { TestWebOptions } from './options.js';
export type { StartTestWebOptions, TestWeb } from './server.js';
export { startTestWeb } from './server.js';
