import { once } from 'node:events';
import type { Writable } from 'node:stream';

const FLUSH_AT_CHARS = 64 * 1024;

/**
 * Buffers output lines and writes them in chunks: at 64 KiB, or once the current batch of
 * input has been handled (a `setImmediate` flush), so a slow interactive producer still
 * sees each answer promptly while a fast pipe gets few large writes. Honours backpressure:
 * `line` waits for `drain` while the stream is full.
 */
export class LineWriter {
  readonly #out: Writable;
  #pending = '';
  #scheduled = false;
  /** Set while the stream is above its high-water mark. */
  #drained: Promise<void> | undefined;

  constructor(out: Writable) {
    this.#out = out;
  }

  /** Queues one line (a newline is added); waits only while the stream is full. */
  async line(text: string): Promise<void> {
    this.#pending += `${text}\n`;
    if (this.#pending.length >= FLUSH_AT_CHARS) {
      this.#write();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#write();
      });
    }
    if (this.#drained !== undefined) await this.#drained;
  }

  /** Writes everything queued and waits until the stream has taken it. */
  async flush(): Promise<void> {
    this.#write();
    if (this.#drained !== undefined) await this.#drained;
  }

  #write(): void {
    if (this.#pending.length === 0) return;
    const chunk = this.#pending;
    this.#pending = '';
    if (!this.#out.write(chunk) && this.#drained === undefined) {
      this.#drained = once(this.#out, 'drain').then(
        () => {
          this.#drained = undefined;
        },
        // A broken pipe is handled where the stream's 'error' is; stop waiting here.
        () => {
          this.#drained = undefined;
        },
      );
    }
  }
}
