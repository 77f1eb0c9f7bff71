#!/usr/bin/env node
// The `asof` command: TypeScript runs through tsx, so a fresh clone needs no build step.
// @ts-check
import { register } from 'tsx/esm/api';

// The AWS SDK warns on Node < 22 about its releases after January 2027; the README states the supported versions.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
await import('./asof.ts');
