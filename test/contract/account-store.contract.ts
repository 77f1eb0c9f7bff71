import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore, ApiKeyRecord } from '#accounts/ports.ts';
import { ConcurrentUpdateError } from '#shared/errors.ts';

export function keyRecord(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const secret = `asof_live_${id}${'A'.repeat(40)}`;
  return {
    id,
    name: `key ${id}`,
    hash: createHash('sha256').update(secret).digest('hex'),
    prefix: secret.slice(0, 16),
    scopes: ['lookup', 'search'],
    test: false,
    createdAt: '2024-06-01T10:00:00.000Z',
    revokedAt: null,
    plan: 'free',
    limits: {},
    ...overrides,
  };
}

/** Every AccountStore adapter must pass this; `factory` returns a store over fresh, empty storage. */
export function describeAccountStoreContract(name: string, factory: () => Promise<AccountStore>): void {
  describe(`AccountStore contract: ${name}`, () => {
    let store: AccountStore;
    beforeEach(async () => {
      store = await factory();
    });

    it('finds a created key by hash and by id, exactly as created', async () => {
      const k = keyRecord('key_a', { test: true, scopes: ['lookup'], plan: 'pro', limits: { perMinute: 600, daily: 10_000 } });
      await store.createKey(k);
      expect(await store.findByHash(k.hash)).toEqual(k);
      expect(await store.getById(k.id)).toEqual(k);
    });

    it('finds nothing for an unknown hash or id', async () => {
      await store.createKey(keyRecord('key_a'));
      expect(await store.findByHash('0'.repeat(64))).toBeNull();
      expect(await store.getById('key_b')).toBeNull();
    });

    it('rejects a second key with the same hash, leaving no trace of it', async () => {
      const first = keyRecord('key_a');
      await store.createKey(first);
      await expect(store.createKey({ ...first, id: 'key_b', name: 'copy' })).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect(await store.findByHash(first.hash)).toEqual(first);
      expect(await store.getById('key_b')).toBeNull();
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['key_a']);
    });

    it('rejects a second key with the same id, leaving no trace of it', async () => {
      const first = keyRecord('key_a');
      const other = keyRecord('key_other');
      await store.createKey(first);
      await expect(store.createKey({ ...other, id: 'key_a' })).rejects.toBeInstanceOf(ConcurrentUpdateError);
      expect(await store.findByHash(other.hash)).toBeNull();
      expect(await store.getById('key_a')).toEqual(first);
    });

    it('lets exactly one of several concurrent creations of one id succeed', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => store.createKey({ ...keyRecord(`key_${i}`), id: 'key_same' })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrentUpdateError);
      expect(await store.listKeys()).toHaveLength(1);
    });

    it('lists every key, oldest first', async () => {
      expect(await store.listKeys()).toEqual([]);
      const keys = [
        keyRecord('key_c', { createdAt: '2024-06-03T00:00:00.000Z' }),
        keyRecord('key_a', { createdAt: '2024-06-02T00:00:00.000Z' }),
        keyRecord('key_b', { createdAt: '2024-06-01T00:00:00.000Z' }),
      ];
      for (const k of keys) await store.createKey(k);
      expect((await store.listKeys()).map((k) => k.id)).toEqual(['key_b', 'key_a', 'key_c']);
      expect(await store.listKeys()).toEqual([keys[2], keys[1], keys[0]]);
    });

    it('revokes by id, idempotently: the first revocation time stays', async () => {
      const k = keyRecord('key_a');
      await store.createKey(k);

      const revoked = await store.revoke('key_a', '2024-06-05T00:00:00.000Z');
      const again = await store.revoke('key_a', '2024-06-06T00:00:00.000Z');

      const expected = { ...k, revokedAt: '2024-06-05T00:00:00.000Z' };
      expect(revoked).toEqual(expected);
      expect(again).toEqual(expected);
      expect(await store.findByHash(k.hash)).toEqual(expected);
      expect(await store.getById('key_a')).toEqual(expected);
    });

    it('revoking an unknown id returns null and creates nothing', async () => {
      expect(await store.revoke('key_missing', '2024-06-05T00:00:00.000Z')).toBeNull();
      expect(await store.listKeys()).toEqual([]);
    });

    it('ping resolves on a reachable store', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
