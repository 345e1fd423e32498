// `hashring` ships no types; only what the benchmark uses is declared.
declare module 'hashring' {
  export default class HashRing {
    constructor(
      servers: Record<string, { weight: number }> | string[],
      algorithm?: string,
      options?: Record<string, unknown>,
    );
    get(key: string): string | undefined;
  }
}
