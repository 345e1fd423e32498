/**
 * JSON Schemas of `POST /v1/seeds`, the one route that writes URLs: its body (capped by the
 * server options) and its per-item report. The read routes' schemas are in the other
 * `schemas-*.ts` files, one per route family.
 */

const integer = { type: 'integer', minimum: 0 } as const;

/** `POST /v1/seeds` body; `maxItems` is set from the server options. */
export function seedsBody(maxItems: number) {
  return {
    type: 'object',
    required: ['urls'],
    additionalProperties: false,
    properties: {
      urls: {
        type: 'array',
        minItems: 1,
        maxItems,
        items: {
          anyOf: [
            { type: 'string', maxLength: 8192 },
            {
              type: 'object',
              required: ['url'],
              additionalProperties: false,
              properties: {
                url: { type: 'string', maxLength: 8192 },
                priority: { type: 'number', description: 'integer; higher is fetched first' },
                depth: { type: 'integer', minimum: 0 },
                meta: { type: 'string', description: 'opaque text carried to the lease' },
              },
            },
          ],
        },
      },
    },
  } as const;
}

export const seedsResponse = {
  type: 'object',
  required: ['queued', 'duplicates', 'rejected', 'overCap', 'results'],
  properties: {
    queued: integer,
    duplicates: integer,
    rejected: integer,
    overCap: integer,
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'status'],
        properties: {
          index: integer,
          status: { type: 'string', enum: ['queued', 'duplicate', 'rejected', 'over-cap'] },
          url: { type: 'string', description: 'canonical URL' },
          domain: { type: 'string' },
          host: { type: 'string' },
          code: { type: 'string' },
          reason: { type: 'string' },
        },
      },
    },
  },
} as const;
