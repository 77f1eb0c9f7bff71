import { defineConfig } from 'vitest/config';

/**
 * unit: pure code, in parallel. contract: every adapter of a port against the same suite (dynalite, PGlite, and the
 * PostgreSQL server when DATABASE_URL is set). http: black-box over real sockets against one local server with the
 * bundled sample corpus, started once for the run (test/http/global-setup.ts). The clients/ packages' tests join the
 * unit and http projects by the same folder names.
 */
// The AWS SDK's warning that its releases after January 2027 need Node 22, once in every worker and child process:
// off the way the SDK documents (aws/aws-sdk-js-v3#7983), for the test run only.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // What a test writes to the console (the logs of the servers it starts: test/support/test-logger.ts) is printed
    // only when it fails: a passing test's expected errors are noise.
    silent: 'passed-only',
    hookTimeout: 180_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'clients/*/test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'contract', include: ['test/contract/**/*.test.ts'] } },
      {
        extends: true,
        // The clients' black-box tests share the one server of the run (a second globalSetup would start a second one).
        test: {
          name: 'http',
          include: ['test/http/**/*.test.ts', 'clients/*/test/http/**/*.test.ts'],
          globalSetup: ['test/http/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
    ],
  },
});
