/**
 * "Import servers": scans the usual places (and a file the person picks), offers what it found,
 * and adds the servers the person selects, with the values VS Code's `inputs` ask for. Nothing
 * found is started, or added, unless the person chooses it.
 */
import { InvalidRequestError, NotFoundError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import type { CatalogServer, EntryInput } from '../../../app/toolbox/catalog.js';
import type { ImportCandidate } from '../../../app/ipc/contract.js';
import {
  ConfigSyntaxError,
  dialectOfFile,
  knownPlaces,
  parseServerConfig,
  scanPlaces,
  type ImportedServer,
  type ScanResult,
} from './importServers.js';
import type { ToolboxCatalog } from './ToolboxCatalog.js';
import type { Machine } from '../machine/Machine.js';

/** The largest config file read (the person's own apps' files are a few KiB). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Scans and imports. */
export class ServerImports {
  /** The last scan's finds, by candidate id (a scan replaces them). */
  private candidates = new Map<string, ImportedServer>();

  constructor(
    private readonly catalog: ToolboxCatalog,
    private readonly home: string,
    private readonly appData: string | undefined,
    /** The machine the files are read on: this computer (where the person's other apps keep them). */
    private readonly machine: Pick<Machine, 'readFile'>,
  ) {}

  /** A config file's text; undefined when it is not there; throws why when it cannot be read (too large, say). */
  private async read(file: string): Promise<string | undefined> {
    let read;
    try {
      read = await this.machine.readFile(file, MAX_CONFIG_BYTES);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        return undefined;
      }
      throw new InvalidRequestError(`${file} could not be read: ${(error as Error).message}`);
    }
    if (read.tooLarge) {
      throw new InvalidRequestError(`${file} could not be read: it is larger than ${MAX_CONFIG_BYTES / (1024 * 1024)} MiB.`);
    }
    return read.data.toString('utf8');
  }

  /** Scans the known places (with the working folder's) or one picked file. */
  async scan(options: { cwd?: string; file?: string }): Promise<{ candidates: ImportCandidate[]; problems: ScanResult['problems'] }> {
    let result: ScanResult;
    if (options.file) {
      const text = await this.read(options.file);
      if (text === undefined) {
        throw new InvalidRequestError(`${options.file} could not be read: it does not exist.`);
      }
      try {
        result = { found: parseServerConfig(dialectOfFile(options.file, text), text, options.file), problems: [] };
      } catch (error) {
        if (error instanceof ConfigSyntaxError) {
          throw error;
        }
        throw new InvalidRequestError(`${options.file}: ${(error as Error).message}`);
      }
    } else {
      result = await scanPlaces(
        knownPlaces({
          home: this.home,
          platform: process.platform,
          ...(this.appData ? { appData: this.appData } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
        }),
        (file) => this.read(file),
      );
    }
    const known = new Set(this.catalog.listServers().map((server) => server.name.toLowerCase()));
    this.candidates = new Map(result.found.map((imported) => [newId(), imported]));
    const candidates = [...this.candidates].map(([candidateId, { server, origin, needsInput, notCarried }]): ImportCandidate => ({
      candidateId,
      name: server.name,
      transport: server.transport,
      summary: server.transport === 'stdio' ? [server.command ?? '', ...(server.args ?? [])].join(' ') : (server.url ?? ''),
      dialect: origin.dialect,
      file: origin.file,
      key: origin.key,
      secretNames: [...(server.env ?? []), ...(server.headers ?? [])].filter((entry) => entry.secret).map((entry) => entry.name),
      needsInput,
      notCarried,
      alreadyInCatalog: known.has(server.name.toLowerCase()),
    }));
    return { candidates, problems: result.problems };
  }

  /** Adds the chosen candidates of the last scan; `inputs` fills VS Code's `${input:id}` values. */
  import(candidateIds: readonly string[], inputs: Readonly<Record<string, string>>): CatalogServer[] {
    const chosen = candidateIds.map((candidateId) => {
      const imported = this.candidates.get(candidateId);
      if (!imported) {
        throw new NotFoundError('server found by the last scan', candidateId);
      }
      for (const input of imported.needsInput) {
        if (!inputs[input.inputId]) {
          throw new InvalidRequestError(`"${imported.server.name}" needs a value for ${input.description}.`);
        }
      }
      return imported;
    });
    return chosen.map(({ server, origin }) => {
      const fill = (list: EntryInput[] | undefined): EntryInput[] =>
        (list ?? []).map((entry) => ({
          ...entry,
          value: entry.value.replace(/\$\{input:([^}]+)\}/g, (_, id: string) => inputs[id] ?? ''),
        }));
      return this.catalog.addServer({ ...server, env: fill(server.env), headers: fill(server.headers) }, origin);
    });
  }
}
