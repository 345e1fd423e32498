/** Schemas of the domain routes: the paged list, one domain, its dead letters, pause/resume. */
import { crawlParam, deadLetterMessage, domainParam, domainStatus } from './schemas-common.js';

const integer = { type: 'integer', minimum: 0 } as const;

export const domainsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    crawl: crawlParam,
    sort: { type: 'string', enum: ['depth', 'fetched', 'errors'], default: 'depth' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description: 'opaque, from nextCursor',
    },
  },
} as const;

const domainRow = {
  type: 'object',
  required: [
    'domain',
    'status',
    'owner',
    'queued',
    'inFlight',
    'fetched',
    'failed',
    'dead',
    'repeats',
    'paused',
    'hostCount',
  ],
  properties: {
    domain: { type: 'string' },
    status: domainStatus,
    owner: { type: ['string', 'null'] },
    queued: integer,
    inFlight: integer,
    fetched: integer,
    failed: integer,
    dead: integer,
    repeats: integer,
    paused: { type: 'boolean' },
    hostCount: integer,
  },
} as const;

export const domainsResponse = {
  type: 'object',
  required: ['sort', 'items', 'nextCursor'],
  properties: {
    sort: { type: 'string' },
    items: { type: 'array', items: domainRow },
    nextCursor: { type: ['string', 'null'] },
  },
} as const;

const domainStatFields = [
  'queued',
  'inFlight',
  'fetched',
  'failed',
  'dead',
  'duplicates',
  'overCap',
  'repeats',
  'seen',
  'enqueued',
  'claimed',
  'released',
  'late',
  'bytes',
  'fetchMs',
  'links',
  'scheduled',
  'budgetSpent',
  'budgetRefillAtMs',
] as const;

export const domainResponse = {
  type: 'object',
  required: [
    'domain',
    'owner',
    'paused',
    'hostCount',
    'hosts',
    'deadLettersKept',
    ...domainStatFields,
  ],
  properties: {
    domain: { type: 'string' },
    owner: { type: ['string', 'null'] },
    paused: { type: 'boolean' },
    blockedUntilMs: {
      ...integer,
      description: 'epoch ms until which the domain is blocked; 0 = not',
    },
    scheduled: { ...integer, description: 'URLs waiting in refetch schedules (counted in queued)' },
    budgetSpent: { ...integer, description: 'claims taken from the refilling budget this window' },
    budgetRefillAtMs: {
      ...integer,
      description: 'epoch ms at which the spent refilling budget refills; 0 = never spent',
    },
    archived: {
      type: 'boolean',
      description:
        'idle and folded into the archive: off the domain listings, unfolded by its next URL',
    },
    hostCount: integer,
    hosts: { type: 'array', items: { type: 'string' }, maxItems: 1000 },
    deadLettersKept: integer,
    ...Object.fromEntries(domainStatFields.map((f) => [f, integer])),
  },
} as const;

export const domainParams = {
  type: 'object',
  required: ['domain'],
  properties: { domain: domainParam },
} as const;

export const pauseResponse = {
  type: 'object',
  required: ['domain', 'paused'],
  properties: { domain: { type: 'string' }, paused: { type: 'boolean' } },
} as const;

export const deadLettersQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    crawl: crawlParam,
    domain: {
      ...domainParam,
      description:
        'the domain key; without it: the dead letters of every domain, most dead letters first',
    },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

export const deadLettersResponse = {
  type: 'object',
  required: ['domain', 'total', 'domains', 'items', 'nextCursor'],
  properties: {
    domain: { type: ['string', 'null'], description: 'the domain asked for; null for all domains' },
    total: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'dead letters kept for the domain; null for all domains',
    },
    domains: {
      ...integer,
      description: 'domains listed from: 1, or the domains holding dead letters (index count)',
    },
    nextCursor: { type: ['string', 'null'] },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'url',
          'host',
          'domain',
          'priority',
          'depth',
          'attempt',
          'reason',
          'message',
          'status',
          'atMs',
          'meta',
        ],
        properties: {
          url: { type: 'string' },
          host: { type: 'string' },
          domain: { type: 'string' },
          priority: { type: 'integer' },
          depth: integer,
          attempt: integer,
          reason: { type: 'string' },
          message: deadLetterMessage,
          status: integer,
          atMs: integer,
          meta: { type: 'string' },
        },
      },
    },
  },
} as const;
