import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * Source fingerprints: what lets an unchanged re-run skip an edition before reading it (engine.ts). A fingerprint
 * names what was read and the code that reads it: the SHA-256 of the source's text (a connector's own), of the
 * reader's modules and of what every edition's reading depends on (ENGINE_MODULES). Equal fingerprints give equal
 * documents, so an edition whose last complete ingest recorded the same one is the same edition; a changed file, or a
 * changed reader (a fix that reads a section otherwise), gives another fingerprint, and the edition is read and
 * compared as before.
 */

/** The project's functions/ folder, which the modules below are named from. */
const FUNCTIONS = new URL('../', import.meta.url);

const codeDigests = new Map<string, Promise<string | null>>();

/**
 * The SHA-256 of the source text of `modules` (module URLs), computed once per process; null when one cannot be read
 * (a bundled deployment without its sources): then nothing is fingerprinted and every edition is read.
 */
export function codeDigest(modules: readonly URL[]): Promise<string | null> {
  const id = modules.map((m) => m.href).join('\n');
  let digest = codeDigests.get(id);
  if (!digest) {
    digest = (async () => {
      const hash = createHash('sha256');
      try {
        for (const module of modules) hash.update(`${module.pathname}\u0000${await readFile(module)}\u0000`);
      } catch {
        return null;
      }
      return hash.digest('hex');
    })();
    codeDigests.set(id, digest);
  }
  return digest;
}

/** The modules every edition's reading depends on: the engine's checks and identity, and the text normalization. */
export const ENGINE_MODULES: readonly URL[] = ['ingest/engine.ts', 'shared/hash.ts', 'law/collections.ts'].map(
  (module) => new URL(module, FUNCTIONS),
);
