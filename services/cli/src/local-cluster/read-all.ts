import type { Readable } from 'node:stream';

/** The whole of a stream as text (the supervisor's spec on stdin). */
export async function readAll(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}
