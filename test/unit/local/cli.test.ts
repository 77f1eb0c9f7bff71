/**
 * The `asof` dispatcher on the real table of commands: the usage text is assembled from every command's own block,
 * and a flag a command does not declare is refused (exit 2, naming the flag and the command) before the command runs.
 * Where a command would start a server or open stores if it ran, its `run` is replaced by one that records the call:
 * what is tested is the table's declared flags and the dispatcher, not the commands' work.
 */
import { describe, expect, it } from 'vitest';
import { allOptions, COMMANDS, dispatch, main } from '#local/cli.ts';
import type { Command } from '#local/commands/command.ts';

const NAMES = ['serve', 'mcp', 'keys', 'plans', 'ingest', 'fetch', 'audit', 'probe', 'reindex', 'formats', 'openapi'];
/** The flags several commands share, described once rather than in every block. */
const SHARED = new Set(['data-dir', 'json']);

async function run(argv: string[], commands: readonly Command[] = COMMANDS) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await dispatch(commands, argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, '/nonexistent', {
    dev: { name: 'dev', prefix: 'asof-dev' },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The real table, each command's run replaced by a record of the call. */
function recording() {
  const ran: string[] = [];
  const commands = COMMANDS.map(
    (c): Command => ({
      ...c,
      run: () => {
        ran.push(c.name);
        return 0;
      },
    }),
  );
  return { ran, commands };
}

const sampleValue = (type: string) => (type === 'string' ? ['x'] : []);

describe('asof --help', () => {
  it('lists every command, each with its own block, in the table order', async () => {
    const { code, out } = await run(['--help']);

    expect(code).toBe(0);
    expect(COMMANDS.map((c) => c.name)).toEqual(NAMES);
    expect(out.startsWith('usage: asof <command> [options]\n\n')).toBe(true);
    let at = 0;
    for (const command of COMMANDS) {
      const block = command.usage(['dev']);
      const found = out.indexOf(block, at);
      expect(found, `${command.name}'s block`).toBeGreaterThanOrEqual(at);
      expect(block, `${command.name}'s block names it`).toMatch(new RegExp(`^  ${command.name}\\b`, 'm'));
      at = found + block.length;
    }
  });

  it("names in each command's block every flag of its own", () => {
    const missing = COMMANDS.flatMap((c) =>
      Object.keys(c.options)
        .filter((flag) => !SHARED.has(flag) && !c.usage([]).includes(`--${flag}`))
        .map((flag) => `${c.name} --${flag}`),
    );
    expect(missing).toEqual([]);
  });

  it('prints the usage on stdout with exit 2 when no command is given, and the stages --stage may name', async () => {
    const { code, out } = await run([]);
    expect(code).toBe(2);
    expect(out).toContain('against a deployed stage (dev)');
  });

  it('is help for any command, -h too, and runs nothing', async () => {
    const { ran, commands } = recording();
    for (const argv of [
      ['serve', '--help'],
      ['keys', 'create', '-h'],
      ['plans', '--json', '--help'],
    ]) {
      const { code, out } = await run(argv, commands);
      expect(code, argv.join(' ')).toBe(0);
      expect(out).toContain('usage: asof <command> [options]');
    }
    expect(ran).toEqual([]);
  });
});

describe('the flags of each command', () => {
  it('refuses, for every command, each flag only other commands take: exit 2, naming the flag and the command, before it runs', async () => {
    const { ran, commands } = recording();
    const every = allOptions(COMMANDS);
    let refusals = 0;
    for (const command of COMMANDS) {
      for (const [flag, option] of Object.entries(every)) {
        if (flag === 'help' || Object.hasOwn(command.options, flag)) continue;
        const { code, out, err } = await run([command.name, `--${flag}`, ...sampleValue(option.type)], commands);
        expect(code, `${command.name} --${flag}`).toBe(2);
        expect(err).toContain(`asof ${command.name}: --${flag} is not a flag of ${command.name}, only of `);
        expect(out).toBe('');
        refusals++;
      }
    }
    expect(ran).toEqual([]);
    expect(refusals).toBeGreaterThan(100);
  });

  it('passes each command every flag it declares, wherever the flags stand on the line', async () => {
    for (const command of COMMANDS) {
      const given: Record<string, unknown> = {};
      const commands = COMMANDS.map(
        (c): Command =>
          c === command
            ? {
                ...c,
                run: (_args, flags) => {
                  Object.assign(given, flags);
                  return 0;
                },
              }
            : c,
      );
      const argv = Object.entries(command.options).flatMap(([flag, option]) => [`--${flag}`, ...sampleValue(option.type)]);

      const { code, err } = await run([...argv, command.name, 'sub'], commands);

      expect(code, `${command.name}: ${err}`).toBe(0);
      expect(Object.keys(given).sort()).toEqual(Object.keys(command.options).sort());
    }
  });

  it('says which commands take a flag and what the command takes', async () => {
    const { ran, commands } = recording();
    const { err } = await run(['serve', '--stage', 'dev'], commands);
    expect(ran).toEqual([]);
    expect(err).toBe(
      'asof serve: --stage is not a flag of serve, only of keys (serve takes --port, --host, --data-dir, --no-cache, --no-meter)',
    );
    const dataDir = await run(['plans', 'list', '--data-dir', '/tmp']);
    expect(dataDir.code).toBe(2);
    expect(dataDir.err).toMatch(
      /^asof plans: --data-dir is not a flag of plans, only of serve, mcp, keys, ingest, fetch, .*\(plans takes --json\)$/,
    );
  });

  it('refuses a keys flag the subcommand would ignore, before any store is opened', async () => {
    const list = await run(['keys', 'list', '--name', 'x']);
    expect(list).toMatchObject({
      code: 2,
      err: 'asof keys: --name is not a flag of keys list (keys list takes --json, --stage, --data-dir)',
    });
    const revoke = await run(['keys', 'revoke', 'k1', '--plan', 'pro', '--json']);
    expect(revoke.code).toBe(2);
    expect(revoke.err).toMatch(/^asof keys: --plan is not a flag of keys revoke \(keys revoke takes --stage, --data-dir\)$/);
  });

  it('still runs a command with the flags it takes (the real plans list)', async () => {
    const { code, out } = await run(['--json', 'plans', 'list']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ default: 'free' });
  });

  it('refuses a flag no command takes, and an unknown command, with exit 2', async () => {
    const unknownFlag = await run(['plans', '--bogus']);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.err).toMatch(/^asof: Unknown option '--bogus'/);
    expect(unknownFlag.err).toContain('usage: asof <command> [options]');
    const unknownCommand = await run(['frobnicate', '--json']);
    expect(unknownCommand).toMatchObject({ code: 2, err: "asof frobnicate: unknown command 'frobnicate' (try asof --help)" });
  });

  it('refuses a table where two commands declare one flag differently', () => {
    const a: Command = { name: 'a', options: { mode: { type: 'string' } }, usage: () => '  a', run: () => 0 };
    const b: Command = { name: 'b', options: { mode: { type: 'boolean' } }, usage: () => '  b', run: () => 0 };
    expect(() => allOptions([a, b])).toThrow(/--mode is declared differently by b and another command/);
    expect(Object.keys(allOptions([a, a]))).toEqual(['help', 'mode']);
  });

  it('keeps main on the real table', async () => {
    const out: string[] = [];
    expect(await main(['plans', '--write'], { out: (l) => out.push(l), err: (l) => out.push(l) }, '/nonexistent')).toBe(2);
    expect(out.join('\n')).toMatch(/--write is not a flag of plans, only of openapi/);
  });
});
