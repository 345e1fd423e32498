/** Redis memory as the frontier benches read it (not a bench itself: no `.bench.ts`). */
import type { Redis } from 'ioredis';

/** `used_memory` of `INFO memory`, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}
