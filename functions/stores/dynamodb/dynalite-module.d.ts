/** The one entry point of dynalite that asof uses (its README's), typed: it ships no declarations. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
