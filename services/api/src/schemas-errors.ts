/** The body of every error answer and the per-route error responses built from it. */

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
