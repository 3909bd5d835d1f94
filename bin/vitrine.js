#!/usr/bin/env node
// Entry point for the `vitrine` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
