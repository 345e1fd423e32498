/**
 * A pass-through dispatch handler that sits between the undici agent and the decompress
 * handler, so it sees the response as it came off the wire: the head before decompression
 * drops Content-Encoding and Content-Length (it edits undici's raw header list in place).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { RawResponseHead } from './fetch-types.js';

type RawHeaders = Dispatcher.DispatchController['rawHeaders'];

/** Forwards every callback to `next`; hands the final response head to `onHead` first. */
export class WireTap implements Dispatcher.DispatchHandler {
  readonly #next: Dispatcher.DispatchHandler;
  readonly #onHead: (head: RawResponseHead) => void;

  constructor(next: Dispatcher.DispatchHandler, onHead: (head: RawResponseHead) => void) {
    this.#next = next;
    this.#onHead = onHead;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#next.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#next.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    // 1xx heads are interim; the handler records the final one only, so does the tap.
    if (statusCode >= 200) {
      // Copied now: the decompress handler next in line rewrites the raw list in place.
      this.#onHead({
        statusText: statusMessage ?? '',
        headers: headerPairs(controller.rawHeaders),
      });
    }
    this.#next.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#next.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#next.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#next.onResponseError?.(controller, error);
  }
}

/** undici's raw headers (a flat name/value list over HTTP/1, an object otherwise) as pairs. */
function headerPairs(raw: RawHeaders): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([latin1(raw[i]), latin1(raw[i + 1])]);
  } else if (raw) {
    for (const [name, value] of Object.entries(raw)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== undefined) pairs.push([name, item]);
      }
    }
  }
  return pairs;
}

function latin1(part: Buffer | string | undefined): string {
  return Buffer.isBuffer(part) ? part.toString('latin1') : String(part);
}
