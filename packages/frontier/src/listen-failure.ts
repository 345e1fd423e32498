/**
 * Why a server of a shardline process could not listen, in words (the API, a pod's health
 * server, a URLFrontier node): the same sentence for the same cause, whichever process says it.
 */

const CAUSES: Record<string, string> = {
  EADDRINUSE: 'the port is in use by another process',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
  EACCES: 'binding that port needs privileges (ports below 1024)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (yet): DNS did not answer',
};

/** `cannot listen on host:port: <cause>`, where the cause comes from the error's code or text. */
export function listenFailure(host: string, port: number, error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const known = Object.keys(CAUSES).find((name) => code === name || message?.includes(name));
  return `cannot listen on ${host}:${port}: ${known ? CAUSES[known] : (message ?? String(error))}`;
}
