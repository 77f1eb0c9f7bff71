#!/usr/bin/env node
// The `asof` command: TypeScript runs through tsx, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('./asof.ts');
