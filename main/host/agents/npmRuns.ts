/**
 * npm, run on the machine agents are installed on: an install or a view with its output passed on
 * line by line (Cancel ends it), and what a failed install's package has in the npm registry (its
 * newer versions, its part for this platform).
 */
import type { Env } from '../adapters/AgentAdapter.js';
import { packageName } from '../adapters/builtinAdapter.js';
import type { Machine, MachineProcess } from '../machine/Machine.js';
import { platformPart } from './npmFailure.js';
import { npmEnvironment } from './npmEnvironment.js';
import { newerVersions } from './npmVersions.js';

/** An install under way: its npm run (or download), which Cancel ends. */
export type Run = { group: MachineProcess | undefined; abort: AbortController; cancelled: boolean };

/** Lines of npm's output kept for an error report. */
const OUTPUT_LINES_IN_ERRORS = 20;

/** Runs npm on one machine, with the environment agents are installed with. */
export class NpmRuns {
  constructor(
    private readonly machine: Machine,
    private readonly env: Env,
    /** Where a view runs (any folder: it reads nothing there). */
    private readonly dataDir: string,
  ) {}

  /** The environment npm runs with: the names it may see, and no notice of npm's own updates. */
  private npmEnv(): Env {
    return { ...npmEnvironment(this.env), npm_config_update_notifier: 'false' };
  }

  /** The released versions of a pinned package the npm registry has after the pinned one (`npm view`), oldest first. */
  async newerThanPinned(npm: string, spec: string): Promise<string[]> {
    const view = await this.machine
      .exec(npm, ['view', packageName(spec), 'versions', '--json', '--loglevel=error'], {
        cwd: this.dataDir,
        env: this.npmEnv(),
        timeoutMs: 60_000,
      })
      .catch(() => undefined);
    return view?.code === 0 ? newerVersions(spec, view.stdout) : [];
  }

  /**
   * For a failed install of a package built per platform (its install script fails without its
   * part, and npm leaves nothing to look at): the part for this platform, when the npm registry
   * does not have it. Asked of npm itself (`npm view`).
   */
  async unpublishedPart(npm: string, spec: string, run: Run): Promise<string | undefined> {
    if (!/^(@[^/@]+\/)?[^/@]+@[^/]+$/.test(spec)) {
      return undefined;
    }
    const view = async (args: string[]): Promise<{ exit: number | null; tail: string }> =>
      this.run(npm, ['view', ...args, '--json', '--loglevel=error'], this.dataDir, () => {}, run);
    const optional = await view([spec, 'optionalDependencies']);
    if (optional.exit !== 0) {
      return undefined;
    }
    try {
      const part = platformPart(JSON.parse(optional.tail || '{}') as Record<string, string>, process.platform, process.arch);
      return part && (await view([part, 'version'])).exit !== 0 ? part : undefined;
    } catch {
      return undefined;
    }
  }

  /** Runs npm, passing each output line on; resolves with its exit code and last lines. */
  async run(
    npm: string,
    args: string[],
    cwd: string,
    line: (text: string) => void,
    run: Run,
  ): Promise<{ exit: number | null; tail: string; cancelled: boolean }> {
    const child = this.machine.spawn({
      command: npm,
      args,
      cwd,
      env: this.npmEnv(),
    });
    run.group = child;
    return this.read(child, line, run);
  }

  private async read(
    child: MachineProcess,
    line: (text: string) => void,
    run: { cancelled: boolean },
  ): Promise<{ exit: number | null; tail: string; cancelled: boolean }> {
    try {
      await child.spawned();
    } catch (error) {
      return { exit: null, tail: (error as Error).message, cancelled: run.cancelled };
    }
    child.stdin.end();
    const recent: string[] = [];
    let pending = '';
    const onData = (chunk: Buffer): void => {
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const text of lines.filter((candidate) => candidate.trim() !== '')) {
        recent.push(text);
        if (recent.length > OUTPUT_LINES_IN_ERRORS) {
          recent.shift();
        }
        line(text);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const { code } = await child.exited;
    if (pending.trim()) {
      recent.push(pending);
      line(pending);
    }
    return { exit: code, tail: recent.join('\n'), cancelled: run.cancelled };
  }
}
