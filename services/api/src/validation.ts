/**
 * Request validation and parsing. Bodies are validated strictly: no type coercion (Fastify's
 * default would turn `{"urls":"http://x/"}` into a one-item array), unknown fields refused.
 * Query strings and path parameters arrive as text, so they (and only they) are coerced to
 * the schema's scalar types. JSON bodies must be valid UTF-8: the default parser would decode
 * bad bytes to U+FFFD and the frontier would queue a URL the client never sent.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiErrorCode, HttpError } from './errors.js';

/** Options both compilers share: every problem reported, defaults applied, no `strict` noise from OpenAPI keywords. */
const COMMON = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Byte offset of the first invalid UTF-8 sequence in `bytes` (a linear scan, only on failure). */
function firstBadByte(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : 4;
    if (b >= 0xf5 || (b >= 0x80 && b < 0xc2)) return i;
    try {
      strictUtf8.decode(bytes.subarray(i, i + len));
    } catch {
      return i;
    }
    i += len;
  }
  return bytes.length;
}

/** Installs the validator compilers and the UTF-8-checking JSON body parser on `app`. */
export function installValidation(app: FastifyInstance): void {
  const bodies = new Ajv({ ...COMMON, coerceTypes: false });
  const texts = new Ajv({ ...COMMON, coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodies : texts).compile(schema),
  );
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
      let text: string;
      try {
        text = strictUtf8.decode(body);
      } catch {
        done(
          new HttpError(
            400,
            ApiErrorCode.BAD_UTF8,
            `body is not valid UTF-8 (first bad byte at offset ${firstBadByte(body)}); send URLs as UTF-8 or percent-encode their bytes`,
          ),
        );
        return;
      }
      // Fastify's own parser (secure-json-parse: refuses __proto__ / constructor poisoning).
      json(request, text, done);
    },
  );
}

/**
 * Whether `text` is well-formed Unicode. A JSON `\udc80` escape decodes to a lone surrogate,
 * which URL encoding would turn into U+FFFD (`%EF%BF%BD`): a different URL than the one given.
 */
export function isWellFormed(text: string): boolean {
  // String.prototype.isWellFormed is Node 20+ (ES2024), not yet in the TS lib we target.
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
