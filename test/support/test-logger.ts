/**
 * The logger for a server a test starts: it writes through the global console, which vitest holds back for a test
 * that passes and prints beside one that fails (`silent: 'passed-only'` in vitest.config.ts), so the errors a test
 * provokes on purpose are quiet and a failure keeps its log. Powertools writes to a console of its own on stdout,
 * out of vitest's sight, unless POWERTOOLS_DEV is set when a logger is made: then to the global console.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';

export function testLogger(logLevel: LogLevel = 'WARN'): Logger {
  const dev = process.env.POWERTOOLS_DEV;
  process.env.POWERTOOLS_DEV = 'true';
  try {
    return new Logger({ serviceName: 'asof', logLevel });
  } finally {
    if (dev === undefined) delete process.env.POWERTOOLS_DEV;
    else process.env.POWERTOOLS_DEV = dev;
  }
}
