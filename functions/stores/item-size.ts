/**
 * DynamoDB's item limit and how DynamoDB counts an item's size. The DynamoDB adapters refuse an item over it by name;
 * the SQLite version store refuses a key history over it as well, since the VersionStore contract bounds a history
 * (see functions/law/ports.ts), so that every adapter accepts the same histories.
 */

/** DynamoDB's item limit: attribute names plus values, strings counted in UTF-8 bytes. */
export const MAX_ITEM_BYTES = 400 * 1024;

function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/^-|\.|e.*$/gi, '')
      .replace(/^0+|0+$/g, '').length;
    return 1 + Math.ceil(Math.max(1, digits) / 2);
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + valueBytes(v), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  return 3 + attributesBytes(value as Record<string, unknown>, true);
}

function attributesBytes(item: Record<string, unknown>, nested: boolean): number {
  let sum = 0;
  for (const [name, v] of Object.entries(item)) {
    if (v === undefined) continue;
    sum += Buffer.byteLength(name, 'utf8') + valueBytes(v) + (nested ? 1 : 0);
  }
  return sum;
}

/** An upper estimate of an item's stored size, as DynamoDB counts it. */
export const itemBytes = (item: Record<string, unknown>): number => attributesBytes(item, false);

/** Fails loudly, naming the item, rather than letting DynamoDB reject a batch anonymously (or anything truncate). */
export function assertItemFits(item: Record<string, unknown>, what: string): void {
  const bytes = itemBytes(item);
  if (bytes > MAX_ITEM_BYTES) {
    throw new Error(`${what} is ${bytes} bytes stored, over DynamoDB's 400 KB (${MAX_ITEM_BYTES}-byte) item limit; it was not written`);
  }
}
