#!/usr/bin/env node
// Shim: register tsx so the TypeScript sources run as they are, then start the sandbox CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/sandbox/cli.ts');
