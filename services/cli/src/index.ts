export type { CliContext } from './context.js';
export { CliError, CliErrorCode, ExitCode } from './errors.js';
export { buildProgram, run } from './main.js';
