import { defineConfig } from 'vitest/config';

/**
 * unit: pure code, in parallel. contract: every adapter of a port against the same suite (dynalite, PGlite, and the
 * PostgreSQL server when DATABASE_URL is set). http: black-box over real sockets against one local server with the
 * bundled sample corpus, started once for the run (test/http/global-setup.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'contract', include: ['test/contract/**/*.test.ts'] } },
      { extends: true, test: { name: 'http', include: ['test/http/**/*.test.ts'], globalSetup: ['test/http/global-setup.ts'] } },
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'] } },
    ],
  },
});
