#!/usr/bin/env node
// Entry point for the `vitrine` command: the compiled CLI when `npm run build` has made it, else the TypeScript
// sources through tsx's loader (a checkout that was never built).
import fs from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (fs.existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
