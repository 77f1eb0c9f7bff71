import { hostname } from 'node:os';
import type { LeaseRuntime } from '#ops/leases.ts';

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The local runtime's knowledge of processes, for leases: an owner on this host whose pid no longer runs is gone (a
 * server killed with `kill -9` mid-ingest). A pid reused since by another process looks alive: the lease then runs out
 * in its time, the safe side.
 */
export const LOCAL_PROCESSES: LeaseRuntime = {
  self: { host: hostname(), pid: process.pid },
  ownerGone: (owner) => owner.host === hostname() && !isAlive(owner.pid),
};
