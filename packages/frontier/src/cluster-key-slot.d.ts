// Types for cluster-key-slot (ioredis's own slot function), which ships none.
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0..16383) of a key, hash tag honoured. */
  export default function calculateSlot(key: string): number;
}
