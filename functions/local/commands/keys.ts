/**
 * `asof keys create|list|revoke|usage`: the API keys of the local data dir, or with `--stage` of a deployed stage
 * (its DynamoDB tables and API Gateway keys). The stores and the AWS clients are imported only when a command runs.
 */
import { SCOPES } from '#accounts/authenticate.ts';
import { issueKey } from '#accounts/issue-key.ts';
import { PlanBook } from '#accounts/plans.ts';
import type { AccountStore, ApiKeyRecord, GatewayKeys, MeterStore } from '#accounts/ports.ts';
import { revokeKey } from '#accounts/revoke-key.ts';
import { type UsageReport, usageReport } from '#accounts/usage-report.ts';
import type { StageTarget } from '../stage-accounts.ts';
import { type CliIo, type Command, type Flags, count as n, UsageError } from './command.ts';
import { DATA_DIR, dataDirOf, JSON_OUTPUT } from './flags.ts';

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  plan: { type: 'string' },
  'per-minute': { type: 'string' },
  daily: { type: 'string' },
  monthly: { type: 'string' },
  test: { type: 'boolean' },
  ...JSON_OUTPUT,
  /** A deployed stage's name (bin/stages.ts): the keys commands then act on its tables and gateway. */
  stage: { type: 'string' },
  ...DATA_DIR,
} as const;

type KeysFlags = Flags<typeof OPTIONS>;
type KeysFlag = keyof typeof OPTIONS;

/** The flags each subcommand reads; `--stage` and `--data-dir` choose the accounts and go with every one. */
const SUBCOMMAND_FLAGS: Readonly<Record<string, readonly KeysFlag[]>> = {
  create: ['name', 'scopes', 'plan', 'per-minute', 'daily', 'monthly', 'test', 'json'],
  list: ['json'],
  revoke: [],
  usage: ['json'],
};
const EVERY_SUBCOMMAND: readonly KeysFlag[] = ['stage', 'data-dir'];

/**
 * A flag of `keys` that this subcommand would ignore (`keys list --name x`, `keys revoke ID --plan p`): a usage error
 * naming it and what the subcommand takes, rather than a command that runs as if it had not been given.
 */
function refuseOtherSubcommandsFlags(sub: string, flags: KeysFlags): void {
  const takes = SUBCOMMAND_FLAGS[sub];
  if (!takes) return;
  for (const flag of Object.keys(flags) as KeysFlag[]) {
    if (flags[flag] === undefined || takes.includes(flag) || EVERY_SUBCOMMAND.includes(flag)) continue;
    const all = [...takes, ...EVERY_SUBCOMMAND].map((f) => `--${f}`).join(', ');
    throw new UsageError(`--${flag} is not a flag of keys ${sub} (keys ${sub} takes ${all})`);
  }
}

export const keysCommand: Command<typeof OPTIONS> = {
  name: 'keys',
  options: OPTIONS,
  usage: (stageNames) => `  keys create --name NAME [--scopes lookup,...] [--plan P] [--per-minute N] [--daily N] [--monthly N]
              [--test] [--json]
  keys list [--json]
  keys revoke ID
  keys usage ID [--json]     units today and this month, what is left, calls by endpoint
  keys … --stage NAME        any keys command against a deployed stage (${stageNames.join(', ') || 'none configured'}): its
                             DynamoDB tables and its API Gateway keys, with your AWS credentials`,
  run([sub, ...rest], flags, io, { cwd, stages }) {
    if (sub) refuseOtherSubcommandsFlags(sub, flags);
    const stage = stageOf(flags.stage, stages);
    return runKeys(sub, rest, flags, stage ? stageAccounts(stage) : localAccounts(dataDirOf(flags, cwd), io.err), io, stage);
  },
};

function stageOf(name: string | undefined, stages: Readonly<Record<string, StageTarget>>): StageTarget | null {
  if (name === undefined) return null;
  const stage = Object.hasOwn(stages, name) ? stages[name] : undefined;
  if (!stage) throw new UsageError(`unknown stage '${name}' (known: ${Object.keys(stages).join(', ') || 'none'})`);
  return stage;
}

/**
 * `--scopes` as a list: left out, the default (`lookup`); given but naming none (`''`, `','`), refused, as a key with
 * no scope can call nothing and an empty value is never taken for the default.
 */
function scopesFlag(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!scopes.length)
    throw new UsageError(`--scopes is empty (got '${value}'): give one or more of ${SCOPES.join(', ')}, or leave it out for lookup`);
  return scopes;
}

/** The keys and meters a keys command works on, and the gateway keys on a deployed stage (null locally). */
interface Accounts {
  store: AccountStore;
  meters: MeterStore;
  gateway: GatewayKeys | null;
}

type WithAccounts = <T>(fn: (accounts: Accounts) => Promise<T>) => Promise<T>;

/**
 * The local data dir's, on its SQLite file directly, whether or not a server runs on it: the server sees a new or
 * revoked key at its next request.
 */
const localAccounts =
  (dataDir: string, log: (line: string) => void): WithAccounts =>
  async (fn) => {
    const { openEmbeddedAccountStore } = await import('../embedded-stores.ts');
    const opened = await openEmbeddedAccountStore(dataDir, log);
    try {
      return await fn({ store: opened.store, meters: opened.meters, gateway: null });
    } finally {
      await opened.close();
    }
  };

/** A deployed stage's (its DynamoDB tables and its API Gateway keys). */
const stageAccounts =
  (stage: StageTarget): WithAccounts =>
  async (fn) => {
    // Loaded for --stage only: the API Gateway client would add to every other command's start.
    const { openStageAccounts } = await import('../stage-accounts.ts');
    const opened = openStageAccounts(stage);
    try {
      return await fn(opened);
    } finally {
      await opened.close();
    }
  };

const describeKey = (k: ApiKeyRecord) =>
  `${k.id}  ${k.prefix}…  ${k.name}  plan=${k.plan}${describeOverrides(k.limits)}  scopes=${k.scopes.join(',')}${k.test ? '  test' : ''}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`;

const describeOverrides = (limits: ApiKeyRecord['limits']) =>
  Object.entries(limits)
    .map(([name, n]) => `  ${name}=${n}`)
    .join('');

/** `--per-minute`, `--daily`, `--monthly`: whole numbers above zero. */
function limitFlags(flags: KeysFlags): ApiKeyRecord['limits'] {
  const limits: ApiKeyRecord['limits'] = {};
  for (const [flag, field] of [
    ['per-minute', 'perMinute'],
    ['daily', 'daily'],
    ['monthly', 'monthly'],
  ] as const) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
      throw new UsageError(`--${flag} must be a whole number above 0 (got '${raw}')`);
    limits[field] = n;
  }
  return limits;
}

function printUsage(r: UsageReport, io: CliIo): void {
  io.out(
    `${r.keyId}  ${r.name}${r.test ? '  (test key)' : ''}  plan ${r.plan}: ${n(r.ceilings.perMinute)}/minute, ${n(r.ceilings.daily)} units/day, ${n(r.ceilings.monthly)} units/month`,
  );
  io.out(
    `today (${r.today.date} UTC): ${n(r.today.units)} units, ${n(r.today.calls)} calls; ${n(r.remaining.day)} units left (resets in ${Math.ceil(r.resetsIn.day / 60)} min)`,
  );
  for (const row of r.today.byRoute) {
    const statuses = Object.entries(row.statuses)
      .map(([status, calls]) => `${status}×${calls}`)
      .join(' ');
    io.out(`  ${row.routeId.padEnd(18)} ${String(row.calls).padStart(6)} calls ${String(row.units).padStart(6)} units  ${statuses}`);
  }
  io.out(
    `this month (${r.month.month}): ${n(r.month.units)} units; ${n(r.remaining.month)} units left (resets in ${Math.ceil(r.resetsIn.month / 3600)} h)`,
  );
  for (const d of r.month.days) io.out(`  ${d.date} ${String(d.units).padStart(8)} units`);
  io.out(`this minute: ${n(r.remaining.minute)} of ${n(r.ceilings.perMinute)} requests left`);
}

async function runKeys(
  sub: string | undefined,
  rest: string[],
  flags: KeysFlags,
  withAccounts: WithAccounts,
  io: CliIo,
  stage: StageTarget | null,
): Promise<number> {
  const onStage = stage ? ` on stage ${stage.name}` : '';
  const stageFlag = stage ? ` --stage ${stage.name}` : '';
  switch (sub) {
    case 'create': {
      if (!flags.name) throw new UsageError('keys create needs --name NAME');
      const scopes = scopesFlag(flags.scopes);
      const limits = limitFlags(flags);
      const issued = await withAccounts(({ store, gateway }) =>
        issueKey(
          store,
          { name: flags.name!, ...(scopes && { scopes }), test: !!flags.test, ...(flags.plan && { plan: flags.plan }), limits },
          new Date(),
          new PlanBook(),
          gateway,
        ),
      );
      if (flags.json) io.out(JSON.stringify(issued));
      else {
        io.out(
          `Created ${issued.test ? 'test' : 'live'} key ${issued.id}${onStage} (scopes: ${issued.scopes.join(', ')}). Copy it now; it is not shown again:`,
        );
        io.out(issued.key);
      }
      return 0;
    }
    case 'list': {
      const list = await withAccounts(({ store }) => store.listKeys());
      if (flags.json)
        io.out(
          JSON.stringify(
            list.map(({ hash: _hash, ...k }) => k),
            null,
            2,
          ),
        );
      else if (!list.length) io.out(`no keys yet${onStage}: asof keys create --name NAME${stageFlag}`);
      else for (const k of list) io.out(describeKey(k));
      return 0;
    }
    case 'revoke': {
      const id = rest[0];
      if (!id) throw new UsageError(`keys revoke needs a key id (see asof keys list${stageFlag})`);
      const revoked = await withAccounts(({ store, gateway }) => revokeKey(store, id, new Date(), gateway));
      if (!revoked) throw new Error(`no key with id ${id}${onStage}`);
      const gatewayNote = { disabled: '; its gateway key is disabled', absent: `; it has no gateway key${onStage}`, none: '' }[
        revoked.gatewayKey ?? 'none'
      ];
      io.out(`Revoked ${describeKey(revoked.record)}${gatewayNote}`);
      return 0;
    }
    case 'usage': {
      const id = rest[0];
      if (!id) throw new UsageError(`keys usage needs a key id (see asof keys list${stageFlag})`);
      const report = await withAccounts(async ({ store, meters }) => {
        const key = await store.getById(id);
        if (!key) throw new Error(`no key with id ${id}${onStage}`);
        return usageReport(meters, new PlanBook(), key, new Date());
      });
      if (flags.json) io.out(JSON.stringify(report, null, 2));
      else printUsage(report, io);
      return 0;
    }
    default:
      throw new UsageError('keys takes create, list, revoke or usage');
  }
}
