#!/usr/bin/env node
// `npm run bench [-- --quick]`: the benchmark suite (bench/run.ts). TypeScript runs through tsx, as in bin/asof.js.
// @ts-check
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
await import('../bench/run.ts');
