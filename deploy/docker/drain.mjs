// Kubernetes preStop hook of a crawler pod: `node deploy/docker/drain.mjs`.
// POSTs http://127.0.0.1:$HEALTH_PORT/drain — the pod stops claiming, releases its leases,
// hands its domains off and leaves the membership, and answers once it has left — then exits
// 0 so the kubelet sends SIGTERM (which finds the pod already drained). Loopback only, so no
// one else on the pod network can drain a pod. Every failure (no /drain yet, refused,
// timeout) also exits 0: SIGTERM runs the same graceful stop, so nothing is lost by falling
// back to it. DRAIN_TIMEOUT_MS bounds the wait (default 30000, below the 45 s grace period).
const port = process.env.HEALTH_PORT ?? '8081';
const timeoutMs = Number(process.env.DRAIN_TIMEOUT_MS ?? 30_000);
try {
  const response = await fetch(`http://127.0.0.1:${port}/drain`, {
    method: 'POST',
    signal: AbortSignal.timeout(Number.isFinite(timeoutMs) ? timeoutMs : 30_000),
  });
  process.stdout.write(`drain: ${response.status}\n`);
} catch (error) {
  process.stdout.write(`drain: ${error instanceof Error ? error.message : String(error)}\n`);
}
process.exit(0);
