/** Schema of the ops routes' answer (`/healthz`, `/readyz`). */

export const healthResponse = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' }, redis: { type: 'string' } },
} as const;
