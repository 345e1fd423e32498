/** Settings the `shardline` command reads from the environment (the only place it does). */
export interface CliConfig {
  /** `SHARDLINE_DEBUG=1`: print the stack trace of an internal error. */
  debug: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  return { debug: env.SHARDLINE_DEBUG === '1' };
}
