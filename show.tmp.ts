import { readRuleSet } from '#ingest/rules.ts';
import { contentHash } from '#shared/hash.ts';
const [set, path, ...nums] = process.argv.slice(2);
const eds = await readRuleSet(set as any, [path!]);
for (const e of eds) for (const d of e.documents as any[]) if (nums.some((n) => d.key.endsWith('-' + n))) console.log(d.key, contentHash(d.bodyText), process.env.BODY ? '\n' + d.bodyText : '');
