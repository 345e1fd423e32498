/** Schemas of the dashboard's routes: ring lookup, the domain page, dead-letter requeue. */
import { crawlParam, deadLetterMessage, domainStatus } from './schemas-common.js';

const integer = { type: 'integer', minimum: 0 } as const;
const nullableString = { type: ['string', 'null'] } as const;

export const locateQuery = {
  type: 'object',
  required: ['domain'],
  additionalProperties: false,
  properties: {
    domain: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      pattern: '^\\S+$',
      description: "a domain, a host of it or a URL (what the dashboard's ring search box takes)",
    },
    crawl: crawlParam,
  },
} as const;

export const locateResponse = {
  type: 'object',
  required: ['domain', 'position', 'owner', 'epoch'],
  properties: {
    domain: { type: 'string' },
    position: { type: 'number', description: 'ring position as a fraction of 2^64 (0 ≤ p < 1)' },
    owner: nullableString,
    epoch: integer,
  },
} as const;

const hostView = {
  type: 'object',
  required: ['host', 'state', 'head'],
  properties: {
    host: { type: 'string' },
    state: {
      type: 'object',
      required: [
        'queued',
        'inFlight',
        'nextAllowedAtMs',
        'delayMs',
        'crawlDelayMs',
        'backoffMs',
        'adaptiveDelayMs',
        'consecutiveFailures',
      ],
      properties: {
        queued: integer,
        inFlight: integer,
        nextAllowedAtMs: integer,
        concurrency: { type: ['integer', 'null'] },
        delayMs: { type: ['integer', 'null'] },
        crawlDelayMs: integer,
        backoffMs: integer,
        adaptiveDelayMs: integer,
        consecutiveFailures: integer,
      },
    },
    head: {
      type: ['object', 'null'],
      description: 'the URL the host hands out next',
      properties: {
        url: { type: 'string' },
        priority: { type: 'integer' },
        depth: integer,
        attempt: integer,
      },
    },
    robots: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: "the host's robots.txt record in the shared cache (null: none cached)",
    },
  },
} as const;

export const inspectResponse = {
  type: 'object',
  required: [
    'domain',
    'status',
    'owner',
    'position',
    'epoch',
    'paused',
    'counters',
    'hostCount',
    'hosts',
    'deadLetters',
    'deadLettersKept',
    'ownerHistory',
    'timeMs',
  ],
  properties: {
    domain: { type: 'string' },
    status: domainStatus,
    owner: nullableString,
    position: { type: 'number' },
    epoch: integer,
    paused: { type: 'boolean' },
    timeMs: { type: 'integer', description: 'API clock when read (ms), to age nextAllowedAtMs' },
    counters: { type: 'object', additionalProperties: { type: 'number' } },
    hostCount: integer,
    hosts: { type: 'array', items: hostView, maxItems: 20 },
    deadLetters: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        required: ['url', 'reason', 'message', 'status', 'attempt', 'atMs'],
        properties: {
          url: { type: 'string' },
          reason: { type: 'string' },
          message: deadLetterMessage,
          status: integer,
          attempt: integer,
          atMs: integer,
        },
      },
    },
    deadLettersKept: integer,
    ownerHistory: {
      type: 'array',
      description: 'owner at each recorded ring epoch, newest first (registry membership only)',
      items: {
        type: 'object',
        required: ['epoch', 'owner'],
        properties: { epoch: integer, owner: nullableString },
      },
    },
  },
} as const;

export const requeueBody = {
  type: 'object',
  additionalProperties: false,
  properties: { max: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000 } },
} as const;

export const requeueResponse = {
  type: 'object',
  required: ['domain', 'requeued', 'deadLettersKept'],
  properties: { domain: { type: 'string' }, requeued: integer, deadLettersKept: integer },
} as const;
