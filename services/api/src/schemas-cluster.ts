/** Schemas of the cluster routes: `/v1/stats`, `/v1/crawls`, `/v1/pods`, `/v1/ring`. */
import { crawlParam } from './schemas-common.js';

const integer = { type: 'integer', minimum: 0 } as const;
const count = { type: 'number' } as const;

const counters = {
  type: 'object',
  description: 'Counter hash as kept by the frontier (eventually consistent sums)',
  additionalProperties: count,
} as const;

/** Where the member list came from; see `MembershipSource` in `src/cluster-view.ts`. */
const membership = {
  type: 'string',
  enum: ['registry', 'frontier-pods', 'static'],
  description:
    "registry: the pods' registry; frontier-pods: no pod ever joined the registry, so the pods seen in the frontier counters stand in (all reported alive, weight 1, epoch 0); static: a fixed list",
} as const;

export const statsResponse = {
  type: 'object',
  required: [
    'timeMs',
    'epoch',
    'membership',
    'pods',
    'livePods',
    'domains',
    'queued',
    'inFlight',
    'fetched',
    'failed',
    'dead',
    'repeats',
    'counters',
  ],
  properties: {
    timeMs: { type: 'integer', description: 'API server clock when read (ms since epoch)' },
    epoch: integer,
    membership,
    pods: integer,
    livePods: integer,
    domains: { ...integer, description: 'domains in the frontier index' },
    queued: count,
    inFlight: count,
    fetched: count,
    failed: { ...count, description: 'failed attempts (each retry counts)' },
    dead: count,
    repeats: count,
    counters,
    frontierLost: {
      type: ['object', 'null'],
      description:
        'set when a pod found the frontier lost (SHARDLINE_ERR_FRONTIER_LOST: Redis restarted without persistence or was flushed): what is in Redis now is not the crawl that was running',
      required: ['atMs', 'pod', 'expected', 'found'],
      properties: {
        atMs: {
          type: 'integer',
          description: "the pod's clock when it found the loss (ms since epoch)",
        },
        pod: { type: 'string' },
        expected: { type: 'string', description: 'the frontier identity the pod had worked on' },
        found: {
          type: ['string', 'null'],
          description: 'the identity Redis held then (null: none)',
        },
      },
    },
  },
} as const;

const sampleSchema = {
  type: 'object',
  required: ['indexed', 'sampled', 'exact', 'live'],
  description: 'random sample of the domains index that splits live domains by owner',
  properties: {
    indexed: integer,
    sampled: integer,
    exact: { type: 'boolean' },
    live: integer,
  },
} as const;

export const podsResponse = {
  type: 'object',
  required: ['epoch', 'membership', 'pods', 'sample'],
  properties: {
    epoch: integer,
    membership,
    sample: sampleSchema,
    pods: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'id',
          'state',
          'member',
          'alive',
          'weight',
          'sessionExpiresAtMs',
          'tokens',
          'keyspaceShare',
          'dueHosts',
          'backlogHosts',
          'ownedDomains',
          'counters',
          'faults',
        ],
        properties: {
          id: { type: 'string' },
          state: {
            type: 'string',
            enum: ['alive', 'expired', 'departed'],
            description:
              'alive: session current; expired: session lapsed, about to be reclaimed; departed: left the membership, listed until forgotten (its due index empty for the retention period)',
          },
          member: { type: 'boolean', description: 'in the current membership' },
          alive: { type: 'boolean' },
          weight: count,
          sessionExpiresAtMs: {
            type: ['integer', 'null'],
            description:
              'Redis time (ms) the registry session expires unless renewed; null outside the registry',
          },
          tokens: integer,
          keyspaceShare: count,
          dueHosts: { ...integer, description: "hosts in the pod's due index (exact)" },
          backlogHosts: {
            ...integer,
            description:
              "names in the pod's backlog: hosts of packed new domains, claimed as it has room (exact)",
          },
          ownedDomains: { ...integer, description: 'domains with queued URLs owned on the ring' },
          counters,
          faults: {
            type: 'object',
            additionalProperties: count,
            description:
              'background-fault counts the pod last reported (its stats().faults, flattened: redisOom, frontierLost, frontier.forward, …)',
          },
        },
      },
    },
  },
} as const;

export const ringQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    crawl: crawlParam,
    resolution: {
      type: 'integer',
      minimum: 12,
      maximum: 3600,
      default: 360,
      description: 'arcs are folded into this many equal buckets',
    },
  },
} as const;

export const ringResponse = {
  type: 'object',
  required: [
    'epoch',
    'membership',
    'vnodes',
    'seed',
    'fingerprint',
    'tokenCount',
    'members',
    'sample',
    'resolution',
    'arcs',
  ],
  properties: {
    epoch: integer,
    membership,
    vnodes: integer,
    seed: integer,
    fingerprint: { type: 'string' },
    tokenCount: integer,
    resolution: integer,
    sample: sampleSchema,
    members: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'weight', 'tokens', 'keyspaceShare', 'liveDomains', 'liveDomainShare'],
        properties: {
          id: { type: 'string' },
          weight: count,
          tokens: integer,
          keyspaceShare: count,
          liveDomains: integer,
          liveDomainShare: count,
        },
      },
    },
    arcs: {
      type: 'array',
      description: 'the circle from 0 to 1 (fractions of 2^64) in runs of one owner',
      items: {
        type: 'object',
        required: ['pod', 'start', 'end'],
        properties: { pod: { type: 'string' }, start: count, end: count },
      },
    },
  },
} as const;

export const crawlsResponse = {
  type: 'object',
  required: ['crawls'],
  properties: {
    crawls: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: [
          'crawlId',
          'state',
          'createdAtMs',
          'livePods',
          'domains',
          'queued',
          'inFlight',
          'fetched',
          'failed',
          'dead',
        ],
        properties: {
          crawlId: { type: 'string' },
          state: {
            type: 'string',
            enum: ['active', 'deleting'],
            description: 'deleting: `shardline crawl delete` started and has not finished',
          },
          createdAtMs: {
            type: ['integer', 'null'],
            description: 'Redis ms of its first write; null for the default crawl',
          },
          livePods: integer,
          domains: integer,
          queued: integer,
          inFlight: integer,
          fetched: integer,
          failed: integer,
          dead: integer,
        },
      },
    },
  },
} as const;
