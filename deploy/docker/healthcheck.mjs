// Container health check without curl/wget in the image: GET a URL, exit 0 on a 2xx.
// `node deploy/docker/healthcheck.mjs [url]`; default http://127.0.0.1:$HEALTH_PORT/healthz
// (the crawler pod's liveness endpoint). The api service passes its own /healthz URL.
const url = process.argv[2] ?? `http://127.0.0.1:${process.env.HEALTH_PORT ?? '8081'}/healthz`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(2500) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
