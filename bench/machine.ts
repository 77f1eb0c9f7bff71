import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { REPO } from './proc.ts';

export interface Machine {
  cpuModel: string;
  cores: number;
  ramBytes: number;
  node: string;
  os: string;
  commit: string;
}

const osName = (): string => {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    return `${pretty ?? process.platform} (kernel ${release()}, ${process.arch})`;
  } catch {
    return `${process.platform} ${release()} ${process.arch}`;
  }
};

const commit = (): string => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync(
        'git',
        ['status', '--porcelain', '--', 'functions', 'bin', 'data', 'bench', ':!bench/results.json', ':!bench/RESULTS.md'],
        {
          cwd: REPO,
          encoding: 'utf8',
        },
      ).trim() !== '';
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown';
  }
};

export function machine(): Machine {
  const list = cpus();
  return {
    cpuModel: `${list[0]?.model.trim() ?? 'unknown'}${list[0]?.speed ? ` @ ${list[0].speed} MHz` : ''}`,
    cores: availableParallelism(),
    ramBytes: totalmem(),
    node: process.version,
    os: osName(),
    commit: commit(),
  };
}
