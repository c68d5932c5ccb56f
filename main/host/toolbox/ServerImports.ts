/**
 * "Import servers": scans the usual places (and a file the person picks), offers what it found,
 * and adds the servers the person selects, with the values VS Code's `inputs` ask for. Nothing
 * found is started, or added, unless the person chooses it.
 */
import { readFileSync } from 'node:fs';
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

/** Scans and imports. */
export class ServerImports {
  /** The last scan's finds, by candidate id (a scan replaces them). */
  private candidates = new Map<string, ImportedServer>();

  constructor(
    private readonly catalog: ToolboxCatalog,
    private readonly home: string,
    private readonly appData: string | undefined,
  ) {}

  /** Scans the known places (with the working folder's) or one picked file. */
  scan(options: { cwd?: string; file?: string }): { candidates: ImportCandidate[]; problems: ScanResult['problems'] } {
    let result: ScanResult;
    if (options.file) {
      let text: string;
      try {
        text = readFileSync(options.file, 'utf8');
      } catch (error) {
        throw new InvalidRequestError(`${options.file} could not be read: ${(error as Error).message}`);
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
      result = scanPlaces(
        knownPlaces({
          home: this.home,
          platform: process.platform,
          ...(this.appData ? { appData: this.appData } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
        }),
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
