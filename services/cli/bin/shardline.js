#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx's loader is registered before main.ts loads.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/main.ts');
process.exitCode = await run(process.argv);
