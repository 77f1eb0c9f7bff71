import type { LeaseRecord, OpsStore } from './ports.ts';

/**
 * Store-wide leases (one ingest at a time, whoever starts it), over the ops store's conditional writes. A lease ends
 * when its owner releases it or its time runs out; where the runtime can tell that the owner's process is gone (the
 * local runtime: same host, no such pid), it is taken over at once instead of after its time.
 */

/** Who holds a lease: a process (its host and pid) and a token of the one run. */
export interface LeaseOwner {
  host: string;
  pid: number;
  token: string;
}

/** What the runtime knows of processes: this one, and whether the owner of a lease certainly runs no more. */
export interface LeaseRuntime {
  self: { host: string; pid: number };
  /** True only when `owner` is certainly gone; when in doubt, false (the lease then runs out in its time). */
  ownerGone(owner: LeaseOwner): boolean;
}

/** Where nothing can be known of another process (a Lambda sandbox sees no other): only a lease's time frees it. */
export const EXPIRY_ONLY: LeaseRuntime = { self: { host: '', pid: process.pid }, ownerGone: () => false };

export const encodeOwner = (owner: LeaseOwner): string => JSON.stringify({ host: owner.host, pid: owner.pid, token: owner.token });

/** The owner a stored lease names; null for an owner written otherwise (an older version's `pid-random`). */
export function decodeOwner(stored: string): LeaseOwner | null {
  try {
    const o = JSON.parse(stored) as Partial<LeaseOwner>;
    if (typeof o.host === 'string' && Number.isSafeInteger(o.pid) && o.pid! > 0 && typeof o.token === 'string') {
      return { host: o.host, pid: o.pid!, token: o.token };
    }
  } catch {
    // not ours to read: treated as a live owner
  }
  return null;
}

export type LeaseAttempt =
  | {
      held: true;
      owner: LeaseOwner;
      /** The gone owner this lease was taken from, if it was. */
      tookOverFrom: LeaseOwner | null;
      /** Extends it by its length from now; false when it is no longer this owner's. */
      renew(): Promise<boolean>;
      release(): Promise<void>;
    }
  | {
      held: false;
      /** Who holds it (as stored), when it could be read. */
      holder: LeaseRecord | null;
    };

export interface LeaseOptions {
  runtime: LeaseRuntime;
  seconds: number;
  now: () => Date;
}

/** Takes the named lease: free, run out, or held by an owner the runtime knows to be gone. */
export async function takeLease(ops: OpsStore, name: string, { runtime, seconds, now }: LeaseOptions): Promise<LeaseAttempt> {
  const owner: LeaseOwner = { ...runtime.self, token: Math.random().toString(36).slice(2, 10) };
  const id = encodeOwner(owner);
  const until = () => new Date(now().getTime() + seconds * 1000).toISOString();
  const acquire = () => ops.acquireLease(name, id, until(), now().toISOString());
  const held = (tookOverFrom: LeaseOwner | null): LeaseAttempt => ({
    held: true,
    owner,
    tookOverFrom,
    renew: acquire,
    release: () => ops.releaseLease(name, id),
  });

  if (await acquire()) return held(null);
  const holder = await ops.getLease(name);
  if (!holder) return (await acquire()) ? held(null) : { held: false, holder: await ops.getLease(name) }; // released meanwhile
  const gone = decodeOwner(holder.owner);
  if (gone && runtime.ownerGone(gone) && (await ops.takeOverLease(name, holder.owner, id, until()))) return held(gone);
  return { held: false, holder };
}
