import type { AuditFinding } from './ports.ts';

/**
 * An audit finding as a store hands it back. Runs stored before the findings' fields were camelCase spell them as the
 * API does (`check_name` …): both are read, so an old run (DynamoDB, or one upgraded into SQLite) reads as today's.
 */
export function findingOf(item: Record<string, unknown>): AuditFinding {
  const field = <T>(camel: string, snake: string): T => (camel in item ? item[camel] : item[snake]) as T;
  return {
    scope: item.scope as string,
    checkName: field('checkName', 'check_name'),
    status: item.status as AuditFinding['status'],
    detail: item.detail as string,
    rows: item.rows as number,
    avgChars: field('avgChars', 'avg_chars'),
    maxChars: field('maxChars', 'max_chars'),
    unexplainedEmpty: field('unexplainedEmpty', 'unexplained_empty'),
    misattributed: item.misattributed as number,
  };
}
