/**
 * Errors of the URLFrontier service, with stable codes, and how every error a handler meets
 * becomes a gRPC status: the client gets one line naming the input and what to do.
 */
import { status as GrpcStatus, Metadata, type ServiceError } from '@grpc/grpc-js';
import { FrontierArgumentError, RedisOomError } from '@shardline/frontier';

export const UrlFrontierErrorCode = {
  /** A `UrlFrontierNodeOptions` value has the wrong type or is out of range. */
  INVALID_OPTION: 'SHARDLINE_ERR_URLFRONTIER_INVALID_OPTION',
  /** A request field is out of range or names something malformed (the message says which). */
  INVALID_ARGUMENT: 'SHARDLINE_ERR_URLFRONTIER_INVALID_ARGUMENT',
  /** What a request names is not in the frontier (GetURLStatus of a URL never put in the crawl). */
  NOT_FOUND: 'SHARDLINE_ERR_URLFRONTIER_NOT_FOUND',
  /** A method (or a form of it) that has no meaning on the sharded frontier; the message says why. */
  UNIMPLEMENTED: 'SHARDLINE_ERR_URLFRONTIER_UNIMPLEMENTED',
  /** The node cannot listen on its address (the port is taken, the host is not local). */
  LISTEN: 'SHARDLINE_ERR_URLFRONTIER_LISTEN',
  /** A request this node could answer only by reading past a bound (the message names it and the form that answers). */
  TOO_LARGE: 'SHARDLINE_ERR_URLFRONTIER_TOO_LARGE',
} as const;

export type UrlFrontierErrorCode = (typeof UrlFrontierErrorCode)[keyof typeof UrlFrontierErrorCode];

const GRPC_STATUS: Record<UrlFrontierErrorCode, GrpcStatus> = {
  [UrlFrontierErrorCode.INVALID_OPTION]: GrpcStatus.INVALID_ARGUMENT,
  [UrlFrontierErrorCode.INVALID_ARGUMENT]: GrpcStatus.INVALID_ARGUMENT,
  [UrlFrontierErrorCode.NOT_FOUND]: GrpcStatus.NOT_FOUND,
  [UrlFrontierErrorCode.UNIMPLEMENTED]: GrpcStatus.UNIMPLEMENTED,
  [UrlFrontierErrorCode.TOO_LARGE]: GrpcStatus.FAILED_PRECONDITION,
  [UrlFrontierErrorCode.LISTEN]: GrpcStatus.UNAVAILABLE,
};

/** The error class of this package; branch on `code`. */
export class UrlFrontierError extends Error {
  override readonly name = 'UrlFrontierError';
  readonly code: UrlFrontierErrorCode;

  constructor(code: UrlFrontierErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A bad option: names the option, the value and what it must be. */
export function invalidOption(name: string, value: unknown, expected: string): UrlFrontierError {
  return new UrlFrontierError(
    UrlFrontierErrorCode.INVALID_OPTION,
    `UrlFrontierNodeOptions.${name} must be ${expected}, got ${JSON.stringify(value)}`,
  );
}

/** A bad request field: names the method, the field, the value and what it must be. */
export function invalidArgument(
  method: string,
  field: string,
  value: unknown,
  expected: string,
): UrlFrontierError {
  return new UrlFrontierError(
    UrlFrontierErrorCode.INVALID_ARGUMENT,
    `${method}: ${field} must be ${expected}, got ${JSON.stringify(value)}`,
  );
}

/** Nothing found for what the request names: the method, and what was looked for where. */
export function notFound(method: string, what: string): UrlFrontierError {
  return new UrlFrontierError(UrlFrontierErrorCode.NOT_FOUND, `${method}: ${what}`);
}

/** A method or form without a meaning here, and why (listed in docs/urlfrontier.md). */
export function unimplemented(method: string, reason: string): UrlFrontierError {
  return new UrlFrontierError(UrlFrontierErrorCode.UNIMPLEMENTED, `${method}: ${reason}`);
}

/** Past a bound of this node: the method, what is too large, and the form that answers. */
export function tooLarge(method: string, reason: string): UrlFrontierError {
  return new UrlFrontierError(UrlFrontierErrorCode.TOO_LARGE, `${method}: ${reason}`);
}

/** The gRPC status an error becomes (the message travels as the status details). */
export function toServiceError(error: unknown): Partial<ServiceError> {
  const metadata = new Metadata();
  if (error instanceof UrlFrontierError) {
    metadata.set('shardline-error-code', error.code);
    return { code: GRPC_STATUS[error.code], details: error.message, metadata };
  }
  if (error instanceof FrontierArgumentError) {
    metadata.set('shardline-error-code', error.code);
    return { code: GrpcStatus.INVALID_ARGUMENT, details: error.message, metadata };
  }
  if (error instanceof RedisOomError) {
    metadata.set('shardline-error-code', error.code);
    return { code: GrpcStatus.RESOURCE_EXHAUSTED, details: error.message, metadata };
  }
  // Redis unreachable, a script error: the client may retry; the node logs it once.
  const message = error instanceof Error ? error.message : String(error);
  return { code: GrpcStatus.UNAVAILABLE, details: `frontier unavailable: ${message}`, metadata };
}
