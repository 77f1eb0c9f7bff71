import type { MeterWindows } from './windows.ts';

/** A key's three ceilings: requests a minute, units a UTC day, units a UTC month. */
export interface Ceilings {
  perMinute: number;
  daily: number;
  monthly: number;
}

/** An API key as stored: never the key itself, only its SHA-256 and its first sixteen characters. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  /** First 16 characters, for display. */
  prefix: string;
  scopes: string[];
  test: boolean;
  createdAt: string;
  revokedAt: string | null;
  /** Plan id (functions/accounts/plans.json) and the key's own overrides of its plan's ceilings. */
  plan: string;
  limits: { perMinute?: number; daily?: number; monthly?: number };
}

export interface AccountStore {
  /** Fails with ConcurrentUpdateError if a key with the same hash or id exists. */
  createKey(record: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  getById(id: string): Promise<ApiKeyRecord | null>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns the updated record, or null when no key has that id. Idempotent. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | null>;
  ping(): Promise<void>;
}

/**
 * The API keys of a deployed stage's gateway, one per asof key: named by the key's id, its value the key's hash (what
 * the authorizer names as a call's usage identifier), on the usage plan of a tier. Coarse protection only: the
 * accounts table stays the authority on every call.
 */
export interface GatewayKeys {
  /** Creates the key's gateway key, enabled, on the usage plan of `tier`; leaves nothing behind when it fails. */
  register(record: ApiKeyRecord, tier: string): Promise<void>;
  /** Disables every gateway key named `keyId`; false when there is none. Idempotent. */
  disable(keyId: string): Promise<boolean>;
}

/** What a key has used in the windows of one instant: requests this minute, units today and this month. */
export interface MeterUsage {
  minute: number;
  day: number;
  month: number;
}

/** One call to count: its request id makes a retried charge (or refund) count once. */
export interface ChargeRequest {
  keyId: string;
  requestId: string;
  units: number;
  windows: MeterWindows;
  ceilings: Ceilings;
}

export type ChargeResult =
  | { admitted: true; usage: MeterUsage }
  | { admitted: false; exceeded: 'minute' | 'day' | 'month'; usage: MeterUsage };

export type RefundRequest = Omit<ChargeRequest, 'ceilings'>;

/** One keyed call, for the usage report (kept with a TTL). */
export interface UsageRecord {
  keyId: string;
  requestId: string;
  routeId: string;
  units: number;
  status: number;
  /** ISO instant */
  at: string;
  test: boolean;
}

/**
 * The counters behind the meter. `charge` checks the three ceilings and counts the call in all three windows in one
 * atomic step (or counts nothing); `refund` gives a charged call's units back, once.
 */
export interface MeterStore {
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** true when the call was charged and is now refunded; false when there was nothing to refund. */
  refund(req: RefundRequest): Promise<boolean>;
  usage(keyId: string, windows: MeterWindows): Promise<MeterUsage>;
  /** A UTC month's billed units, in all and per day (`DD` → units; days without units are absent). */
  month(keyId: string, month: string): Promise<{ units: number; days: Record<string, number> }>;
  record(records: readonly UsageRecord[]): Promise<void>;
  /** The usage records of one key on one UTC date (`YYYY-MM-DD`), oldest first. */
  records(keyId: string, date: string): Promise<UsageRecord[]>;
  ping(): Promise<void>;
}
