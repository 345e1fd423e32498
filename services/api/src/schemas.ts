/**
 * JSON Schemas of every request and response. Fastify validates requests with them and
 * serialises responses through them; @fastify/swagger turns the same objects into
 * `/openapi.json`, so the document cannot drift from what the server does.
 */
import { crawlParam, domainParam, domainStatus } from './schemas-common.js';

export { crawlQuery } from './schemas-common.js';

export { domainParam };

const integer = { type: 'integer', minimum: 0 } as const;
const count = { type: 'number' } as const;

/** Body of every 4xx/5xx answer. */
export const errorSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'code', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string', description: 'HTTP reason phrase' },
    code: { type: 'string', description: 'stable SHARDLINE_ERR_API_* code' },
    message: { type: 'string' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed JSON, a failed validation or a bad cursor',
  401: 'Missing or wrong bearer token',
  403: 'Mutating routes are disabled: API_TOKEN is not configured',
  404: 'Unknown domain',
  413: 'Body larger than API_MAX_BODY_BYTES',
  415: 'Body is not application/json',
  503: 'Redis unreachable, or no live pods to own the URLs',
};

/** Error responses of a route, by status. */
export function errors(...statuses: number[]): Record<number, object> {
  const out: Record<number, object> = {};
  for (const status of statuses) {
    out[status] = { description: ERROR_TEXT[status] ?? 'Error', ...errorSchema };
  }
  return out;
}

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
          status: integer,
          atMs: integer,
          meta: { type: 'string' },
        },
      },
    },
  },
} as const;

export const healthResponse = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' }, redis: { type: 'string' } },
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
