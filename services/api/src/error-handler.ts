/**
 * Maps every failure to one JSON shape `{ statusCode, error, code, message, details? }`:
 * route errors (`HttpError`), Fastify's body-parser and validation errors, Redis outages.
 */
import { STATUS_CODES } from 'node:http';
import { CrawlDeletingError } from '@shardline/frontier';
import { RingErrorCode } from '@shardline/ring';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Cluster, Redis } from 'ioredis';
import { ApiErrorCode, type ErrorDetail, HttpError } from './errors.js';

const PARSER_ERRORS: Record<string, [number, ApiErrorCode, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, ApiErrorCode.BAD_JSON, 'body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, ApiErrorCode.BAD_JSON, 'body is empty; send a JSON object'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    ApiErrorCode.BAD_JSON,
    'Content-Length does not match the body',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, ApiErrorCode.BODY_TOO_LARGE, 'body is larger than the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    ApiErrorCode.UNSUPPORTED_MEDIA_TYPE,
    'send the body as application/json',
  ],
};

/** Redis errors that mean "not reachable right now" rather than a bug. */
function isOutage(error: Error, redis: Redis | Cluster): boolean {
  if (redis.status !== 'ready') return true;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|ECONNREFUSED|ECONNRESET|Stream isn't writeable|Command timed out|CLUSTERDOWN|LOADING/.test(
      error.message,
    )
  );
}

// Refusals sent before the body was read: close the connection, so a client still
// uploading a large body is not left holding a socket (nor the server's close()).
const UNREAD_BODY = new Set([401, 403, 413, 415]);

function send(reply: FastifyReply, error: HttpError): FastifyReply {
  reply.headers(error.headers);
  const request = reply.request;
  const hasBody =
    request.headers['content-length'] !== undefined ||
    request.headers['transfer-encoding'] !== undefined;
  if (UNREAD_BODY.has(error.statusCode) && hasBody) {
    reply.header('connection', 'close');
  }
  return reply.code(error.statusCode).send({
    statusCode: error.statusCode,
    error: STATUS_CODES[error.statusCode] ?? 'Error',
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
  });
}

/** Installs the error and not-found handlers on `app`. */
export function installErrorHandlers(
  app: FastifyInstance,
  redis: Redis | Cluster,
  maxBodyBytes: number,
): void {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    // No route matched: the answer is 404 whatever the body was (Fastify parses it first).
    if (request.is404) return notFound(request, reply);
    if (raw instanceof HttpError) return send(reply, raw);
    const error = raw as FastifyError;
    if (error.validation) {
      const where = error.validationContext ?? 'request';
      const details: ErrorDetail[] = error.validation.map((v) => ({
        path: `${where}${v.instancePath || ''}`,
        message:
          v.keyword === 'additionalProperties'
            ? `unknown property ${JSON.stringify((v.params as { additionalProperty?: string }).additionalProperty)}`
            : (v.message ?? 'invalid'),
      }));
      return send(
        reply,
        new HttpError(
          400,
          ApiErrorCode.VALIDATION,
          `invalid ${where}: ${details[0]?.path} ${details[0]?.message}`,
          {
            details,
          },
        ),
      );
    }
    const parser = error.code ? PARSER_ERRORS[error.code] : undefined;
    if (parser) {
      const [status, code, message] = parser;
      const text = status === 413 ? `${message} of ${maxBodyBytes} bytes` : message;
      return send(reply, new HttpError(status, code, text));
    }
    if (error instanceof CrawlDeletingError) {
      return send(reply, new HttpError(409, ApiErrorCode.CRAWL_CONFLICT, error.message));
    }
    if ((error as { code?: string }).code === RingErrorCode.EMPTY) {
      return send(reply, new HttpError(503, ApiErrorCode.NO_PODS, 'no live pods in the cluster'));
    }
    if (isOutage(error, redis)) {
      // The outage itself is one warning (redis-outage.ts); its 503s are counted per route.
      request.log.debug({ err: error }, 'redis unavailable');
      return send(
        reply,
        new HttpError(503, ApiErrorCode.UNAVAILABLE, 'Redis is unreachable; try again'),
      );
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, new HttpError(error.statusCode, ApiErrorCode.VALIDATION, error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return send(reply, new HttpError(500, ApiErrorCode.INTERNAL, 'internal error'));
  });
  app.setNotFoundHandler(notFound);
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0]!.slice(0, 200);
  return send(
    reply,
    new HttpError(404, ApiErrorCode.NOT_FOUND, `no route ${request.method} ${path}`),
  );
}
