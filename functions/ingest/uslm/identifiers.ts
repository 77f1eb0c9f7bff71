import { collectionById } from '#law/collections.ts';
import { sectionPart, uscOwnsKey } from '#law/usc-keys.ts';

/**
 * USLM identifiers of the units a title file holds, read into keys (functions/law/usc-keys.ts; docs/DECISIONS.md,
 * "Keys of the US Code"). What cannot be read is a Skip naming why: the reader reports it and goes on.
 */

export type SkipReason =
  | 'no-identifier'
  | 'unreadable-identifier'
  | 'foreign-title'
  | 'unreadable-number'
  | 'unknown-rule-set'
  | 'supplemental-rules'
  | 'duplicate-key';

export interface Skip {
  skip: SkipReason;
  detail: string;
  key?: string;
}

export const isSkip = (x: unknown): x is Skip => typeof x === 'object' && x !== null && 'skip' in x;

const skip = (reason: SkipReason, detail: string, key?: string): Skip => ({ skip: reason, detail, ...(key && { key }) });

/**
 * The keys a `<section>` of `title` stands for. Its identifier names one section (`/us/usc/t1/s112b`), a run of them
 * (`s202 to 204`, `s202...204`: one key, `3-202-to-204`), a list (`s48, 49` or `s1 /us/usc/t24/s2`: one key each,
 * every one of them showing the same placeholder), or a section of an act set out in an appendix
 * (`/us/usc/t18a/pl/91/538/s2`). Without an identifier, its `<num value>` names it (`1201 to 1203`).
 */
export function sectionKeys(title: string, identifier: string | undefined, numValue: string | undefined): string[] | Skip {
  if (!identifier) {
    if (!numValue?.trim()) return skip('no-identifier', 'a <section> with neither an identifier nor a number');
    return listKeys(title, numValue.trim(), `number '${numValue}'`);
  }
  const act = /^\/us\/usc\/t([0-9a-z]+)\/pl\/(\d+)\/(\d+)(?:\/t[0-9a-z]+)*\/s([0-9a-z.\u2013-]+)$/i.exec(identifier);
  if (act) {
    if (act[1]!.toLowerCase() !== title) return foreign(identifier, title);
    const key = `${title}-pl${act[2]}-${act[3]}-${sectionPart(act[4]!)}`;
    return uscOwnsKey(key) ? [key] : skip('unreadable-number', `'${identifier}' gives '${key}', not a United States Code key`);
  }
  const m = /^\/us\/usc\/t([0-9a-z]+)\/s(.+)$/i.exec(identifier);
  if (!m) return skip('unreadable-identifier', `'${identifier}' is not a United States Code section identifier`);
  if (m[1]!.toLowerCase() !== title) return foreign(identifier, title);
  // A list written with full identifiers ("s1 /us/usc/t24/s2") names its title again in each item.
  const items = m[2]!.split(/\s+\/us\/usc\/t([0-9a-z]+)\/s/i);
  for (let i = 1; i < items.length; i += 2) if (items[i]!.toLowerCase() !== title) return foreign(identifier, title);
  return listKeys(title, items.filter((_, i) => i % 2 === 0).join(', '), `'${identifier}'`);
}

/** "202", "202 to 204", "202...204", "48, 49", "451 to 460, 471 to 483". */
function listKeys(title: string, list: string, what: string): string[] | Skip {
  const keys: string[] = [];
  for (const item of list.split(/\s*,\s*/)) {
    const run = /^(\S+?)\s*(?:\bto\b|\.\.\.)\s*(\S+)$/.exec(item.trim());
    const key = `${title}-${run ? sectionPart(run[1]!, run[2]!) : sectionPart(item)}`;
    if (!uscOwnsKey(key)) return skip('unreadable-number', `${what} gives '${key}', not a United States Code key`);
    keys.push(key);
  }
  return keys;
}

const foreign = (identifier: string, title: string): Skip => skip('foreign-title', `'${identifier}' is not a section of title ${title}`);

/** A reorganization plan of an appendix: `/us/usc/t5a/reorgPlan/1970/3` is `5a-reorg-plan-1970-3`. */
export function reorganizationPlanKey(title: string, identifier: string | undefined): string | Skip {
  const m = /^\/us\/usc\/t([0-9a-z]+)\/reorgPlan\/(\d{4})\/([0-9a-z]+)$/i.exec(identifier ?? '');
  if (!m) return skip(identifier ? 'unreadable-identifier' : 'no-identifier', `reorganization plan '${identifier ?? ''}'`);
  if (m[1]!.toLowerCase() !== title) return foreign(identifier!, title);
  const key = `${title}-reorg-plan-${m[2]}-${m[3]!.toLowerCase()}`;
  return uscOwnsKey(key) ? key : skip('unreadable-number', `'${identifier}' gives '${key}', not a United States Code key`);
}

/**
 * The collections that carry the rule sets OLRC sets out in appendix titles, by the last part of the `<courtRules>`
 * identifier: 11a `Bankr`, 18a `Crim`, 28a `App`, `Civil`, `Evid`.
 */
const RULE_SETS: Readonly<Record<string, string>> = { Bankr: 'frbp', Crim: 'frcrp', App: 'frap', Civil: 'frcp', Evid: 'fre' };

/** The collection of a `<courtRules>` set (`/us/usc/t18a/courtRules/Crim` is `frcrp`), or a Skip for its rules. */
export function ruleSetCollection(identifier: string | undefined): string | Skip {
  const set = /^\/us\/usc\/t[0-9a-z]+\/courtRules\/([A-Za-z]+)$/.exec(identifier ?? '')?.[1];
  const collection = set ? RULE_SETS[set] : undefined;
  return collection ?? skip('unknown-rule-set', `court rules '${identifier ?? '(no identifier)'}' have no collection here`);
}

/** A `<courtRule>` of a set: `/us/usc/t18a/courtRules/Crim/rule49.1` is `frcrp-49.1`. */
export function courtRuleKey(collection: string, identifier: string | undefined): string | Skip {
  const m = /^\/us\/usc\/t[0-9a-z]+\/courtRules\/[A-Za-z]+\/rule([0-9a-z.]+)$/i.exec(identifier ?? '');
  if (!m) return skip(identifier ? 'unreadable-identifier' : 'no-identifier', `court rule '${identifier ?? ''}'`);
  const key = collectionById(collection).normalizeKey(`${collection}-${m[1]}`);
  return key ?? skip('unreadable-number', `'${identifier}' is not a numbered rule of ${collection}`);
}
