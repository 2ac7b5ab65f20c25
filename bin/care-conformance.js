#!/usr/bin/env node
// Shim: run the TypeScript CLI through tsx (Node 20 has no type stripping).
import { register } from 'tsx/esm/api';

register();
await import('../src/conformance/cli.ts');
