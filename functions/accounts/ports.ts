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
  /** Plan id and per-key overrides: metering arrives with the accounts issue. */
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
