/**
 * An undici Agent that reaches every `*.test` host on the loopback address, the way a
 * crawler with the `*.test:127.0.0.1` override does. For tests, the demo and benchmarks.
 */
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';

/** Options of {@link createTestWebAgent}. */
export interface TestWebAgentOptions {
  /** Address every `*.test` name resolves to. @default '127.0.0.1' */
  address?: string;
  /** Connections per origin. @default 4 */
  connections?: number;
}

/** An Agent resolving `*.test` to the test web (other names resolve normally). */
export function createTestWebAgent(options: TestWebAgentOptions = {}): Agent {
  const address = options.address ?? '127.0.0.1';
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    if (!hostname.endsWith('.test')) {
      callback(new Error(`not a test web host: ${hostname}`), '', 4);
      return;
    }
    // net.connect asks for every address when it may race IPv4/IPv6 (autoSelectFamily).
    if (lookupOptions.all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family: 4 },
      ]);
    } else {
      callback(null, address, 4);
    }
  };
  return new Agent({ connect: { lookup }, connections: options.connections ?? 4 });
}
