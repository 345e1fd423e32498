/**
 * The supervisor's control channel: HTTP on 127.0.0.1 (random port) answering only
 * requests that carry the bearer token written to the 0600 control file. Three routes:
 * `GET /status`, `POST /scale` (`{"pods": N}`), `POST /down`.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** What the routes call. */
export interface ControlHandlers {
  status(): unknown;
  scale(pods: number): Promise<unknown>;
  down(): Promise<unknown>;
}

/** A listening control server. */
export interface ControlServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Request bodies are tiny (`{"pods":3}`); anything longer is refused. */
const MAX_BODY_BYTES = 1024;

/** Starts the control server on 127.0.0.1 and a free port. */
export function startControlServer(
  token: string,
  handlers: ControlHandlers,
): Promise<ControlServer> {
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((req, res) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return send(res, 401, { error: 'missing or wrong token' });
    }
    void route(req, handlers).then(
      ([status, body]) => send(res, status, body),
      (error: unknown) =>
        send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // Scale-down and down wait for pods' graceful handoff: no request timeout.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}

async function route(req: IncomingMessage, handlers: ControlHandlers): Promise<[number, unknown]> {
  const key = `${req.method} ${req.url}`;
  if (key === 'GET /status') return [200, handlers.status()];
  if (key === 'POST /down') return [200, await handlers.down()];
  if (key === 'POST /scale') {
    let body: { pods?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as { pods?: unknown };
    } catch (error) {
      return [400, { error: (error as Error).message }];
    }
    if (typeof body.pods !== 'number' || !Number.isInteger(body.pods) || body.pods < 0) {
      return [
        400,
        { error: `pods must be a non-negative integer, got ${JSON.stringify(body.pods)}` },
      ];
    }
    return [200, await handlers.scale(body.pods)];
  }
  return [404, { error: `no route ${key}` }];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      }
    });
    req.once('end', () => resolve(text));
    req.once('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
