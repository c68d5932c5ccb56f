/**
 * The ACP Registry as Baton's catalog of agents. Baton ships a dated snapshot of the index
 * (`snapshot.json`) and works fully offline with it. Where the registry's address is reachable,
 * the index is refreshed at most once an hour with a conditional request (ETag, Last-Modified)
 * and kept in the data folder (`<data>/registry/`); a refresh that fails, or brings something
 * that is not an index, keeps the last good copy and says why. The address is the setting
 * `agents.registryUrl` (an https URL, a `file:` URL or a path: a company mirror, a file, a server
 * on 127.0.0.1), and `BATON_REGISTRY_URL` for one run of the host wins over it; `off` turns
 * refreshing off. Icons are fetched with the index, checked to be SVG and small, and kept: the
 * page shows them as images (data URLs), never as markup, and never loads anything remote.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { looksLikeSvg, parseRegistryIndex, type RegistryIndex } from '../../../../app/agents/registry.js';
import type { Env } from '../../process/env.js';
import { dataFileExists, makeDataFolder, readDataBytes, readDataText, readSourceText, writeDataFile } from '../../store/dataFiles.js';
import { ownFile } from '../../ownFiles.js';

/** Where the registry's index is published. */
export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

/** How often the index may be asked for, at most. */
const REFRESH_EVERY_MS = 60 * 60 * 1000;
/** How long one request may take. */
const REQUEST_TIMEOUT_MS = 15_000;
/** The largest index and icon Baton takes. */
const MAX_INDEX_BYTES = 8 * 1024 * 1024;
export const MAX_ICON_BYTES = 64 * 1024;

const snapshotSchema = z.object({
  takenAt: z.string(),
  from: z.string(),
  index: z.unknown(),
  /** Each entry's icon (SVG), shipped with the list: shown while none was fetched. */
  icons: z.record(z.string(), z.string()).default({}),
});
const stateSchema = z.object({
  url: z.string(),
  etag: z.string().nullable().default(null),
  lastModified: z.string().nullable().default(null),
  contentHash: z.string().nullable().default(null),
  fetchedAt: z.string().nullable().default(null),
  checkedAt: z.string().nullable().default(null),
  problem: z.string().nullable().default(null),
});
type StoredState = z.infer<typeof stateSchema>;

/** What Settings › Agents says of the registry. */
export type RegistryStatus = {
  /** The index in use: the shipped snapshot, or a copy downloaded from `url`. */
  source: 'snapshot' | 'downloaded';
  /** When the copy in use was taken (the snapshot's date, or when it was downloaded). */
  takenAt: string;
  /** Where it is refreshed from (null: refreshing is off). */
  url: string | null;
  /** Whether `url` comes from `BATON_REGISTRY_URL`, the setting, or is the default. */
  urlFrom: 'environment' | 'setting' | 'default';
  /** When the address was last asked. */
  checkedAt: string | null;
  /** Why the last refresh did not bring a new index (the last good copy is kept). */
  problem: string | null;
  agents: number;
  /** Entries left out, with why. */
  skipped: Array<{ id: string; reason: string }>;
};

/** What a registry is made with. */
export type AgentRegistryOptions = {
  dataDir: string;
  env: Env;
  /** The setting `agents.registryUrl`, as stored (read on every use). */
  setting: () => string | undefined;
  /** The shipped snapshot (tests give their own). */
  snapshotFile?: string;
  log?: (message: string) => void;
  now?: () => number;
};

/** The registry. */
export class AgentRegistry {
  private current: { index: RegistryIndex; source: 'snapshot' | 'downloaded'; takenAt: string };
  private state: StoredState | undefined;
  private refreshing: Promise<RegistryStatus> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly folder: string;
  private readonly now: () => number;
  /** The icons the shipped snapshot holds, by entry id. */
  private shippedIcons: Record<string, string> = {};

  constructor(private readonly options: AgentRegistryOptions) {
    this.folder = path.join(options.dataDir, 'registry');
    this.now = options.now ?? Date.now;
    this.current = this.loadSnapshot();
    this.state = this.loadState();
    const kept = this.loadKept();
    if (kept) {
      this.current = kept;
    }
  }

  /** The index in use. */
  get index(): RegistryIndex {
    return this.current.index;
  }

  /** Calls `listener` whenever the index in use changes; returns the removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Where the index is refreshed from, and which setting said so (null URL: refreshing is off). */
  address(): { url: string | null; from: RegistryStatus['urlFrom'] } {
    // For one run of the host: from the agents' environment, or the host's own.
    const fromEnv = (this.options.env.BATON_REGISTRY_URL ?? process.env.BATON_REGISTRY_URL)?.trim();
    const fromSetting = this.options.setting()?.trim();
    const [raw, from] = fromEnv
      ? [fromEnv, 'environment' as const]
      : fromSetting
        ? [fromSetting, 'setting' as const]
        : [DEFAULT_REGISTRY_URL, 'default' as const];
    return { url: raw === 'off' ? null : normalizeAddress(raw), from };
  }

  /** What Settings says of it. */
  status(): RegistryStatus {
    const { url, from } = this.address();
    const sameUrl = this.state?.url === url;
    return {
      source: this.current.source,
      takenAt: this.current.takenAt,
      url,
      urlFrom: from,
      checkedAt: sameUrl ? (this.state?.checkedAt ?? null) : null,
      problem: sameUrl ? (this.state?.problem ?? null) : null,
      agents: this.current.index.agents.length,
      skipped: this.current.index.skipped,
    };
  }

  /** Refreshes when the last check of this address is an hour old (or there was none); never throws. */
  refreshIfDue(): Promise<RegistryStatus> {
    const { url } = this.address();
    const checked = this.state?.url === url && this.state.checkedAt ? Date.parse(this.state.checkedAt) : 0;
    return url === null || this.now() - checked < REFRESH_EVERY_MS ? Promise.resolve(this.status()) : this.refresh();
  }

  /** Asks the address for a newer index now; never throws (a failure is in the status). */
  refresh(): Promise<RegistryStatus> {
    this.refreshing ??= this.fetchIndex().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** The agent's icon as a data URL: the one fetched, else the one the snapshot shipped. */
  icon(agentId: string): string | undefined {
    const file = path.join(this.folder, 'icons', `${agentId}.svg`);
    try {
      return `data:image/svg+xml;base64,${readDataBytes(file).toString('base64')}`;
    } catch {
      const shipped = this.shippedIcons[agentId];
      return shipped === undefined ? undefined : `data:image/svg+xml;base64,${Buffer.from(shipped).toString('base64')}`;
    }
  }

  private async fetchIndex(): Promise<RegistryStatus> {
    const { url } = this.address();
    if (url === null) {
      return this.status();
    }
    const previous = this.state?.url === url ? this.state : undefined;
    const checkedAt = new Date(this.now()).toISOString();
    let next: StoredState = {
      url,
      etag: previous?.etag ?? null,
      lastModified: previous?.lastModified ?? null,
      contentHash: previous?.contentHash ?? null,
      fetchedAt: previous?.fetchedAt ?? null,
      checkedAt,
      problem: null,
    };
    try {
      const answer = await this.request(url, previous);
      if (answer.kind === 'not-modified') {
        this.options.log?.(`The agent registry at ${url} has not changed.`);
      } else {
        let index: RegistryIndex;
        try {
          index = parseRegistryIndex(answer.text);
        } catch (error) {
          throw new Error(`${url} did not answer with an agent registry: ${(error as Error).message}`);
        }
        writeDataFile(path.join(this.folder, 'index.json'), answer.text);
        next = { ...next, etag: answer.etag, lastModified: answer.lastModified, contentHash: sha256(answer.text), fetchedAt: checkedAt };
        this.current = { index, source: 'downloaded', takenAt: checkedAt };
        await this.fetchIcons(index, url);
        this.options.log?.(
          `The agent registry at ${url} lists ${index.agents.length} agents${index.skipped.length > 0 ? ` (${index.skipped.length} entries left out)` : ''}.`,
        );
        this.changed();
      }
    } catch (error) {
      next.problem = `${(error as Error).message}; Baton keeps using ${this.current.source === 'snapshot' ? `the list it shipped with (${this.current.takenAt})` : `the copy from ${this.current.takenAt}`}`;
      this.options.log?.(`Could not refresh the agent registry: ${next.problem}`);
    }
    this.state = next;
    this.saveState(next);
    return this.status();
  }

  /** One conditional request: an https or http address, or a file. */
  private async request(
    url: string,
    previous: StoredState | undefined,
  ): Promise<{ kind: 'not-modified' } | { kind: 'body'; text: string; etag: string | null; lastModified: string | null }> {
    if (url.startsWith('file:')) {
      const file = fileURLToPath(url);
      const text = await readSourceText(file, MAX_INDEX_BYTES).catch((error: NodeJS.ErrnoException) => {
        throw new Error(
          error instanceof RangeError
            ? `${file} is larger than ${MAX_INDEX_BYTES} bytes`
            : `${file} cannot be read (${error.code ?? error.message})`,
        );
      });
      return previous?.contentHash === sha256(text) && dataFileExists(path.join(this.folder, 'index.json'))
        ? { kind: 'not-modified' }
        : { kind: 'body', text, etag: null, lastModified: null };
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const keptCopy = dataFileExists(path.join(this.folder, 'index.json'));
    if (keptCopy && previous?.etag) {
      headers['if-none-match'] = previous.etag;
    }
    if (keptCopy && previous?.lastModified) {
      headers['if-modified-since'] = previous.lastModified;
    }
    let response: Response;
    try {
      response = await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      throw new Error(`${url} could not be reached (${describeFetchError(error)})`);
    }
    if (response.status === 304) {
      return { kind: 'not-modified' };
    }
    if (!response.ok) {
      throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
    }
    const text = await readLimited(response, MAX_INDEX_BYTES, url);
    return { kind: 'body', text, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
  }

  /** Fetches the icons an index names (relative ones against its address), keeping the SVG ones that are small. */
  private async fetchIcons(index: RegistryIndex, base: string): Promise<void> {
    const folder = path.join(this.folder, 'icons');
    makeDataFolder(folder);
    const wanted = index.agents.filter((agent) => agent.icon);
    const fetchOne = async (agentId: string, icon: string): Promise<void> => {
      try {
        const source = new URL(icon, base).href;
        const text = source.startsWith('file:')
          ? await readSourceText(fileURLToPath(source))
          : await fetch(source, { redirect: 'follow', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then((response) =>
              response.ok ? readLimited(response, MAX_ICON_BYTES, source) : Promise.reject(new Error(`answered ${response.status}`)),
            );
        if (text.length <= MAX_ICON_BYTES && looksLikeSvg(text)) {
          writeDataFile(path.join(folder, `${agentId}.svg`), text);
        }
      } catch (error) {
        this.options.log?.(`The icon of ${agentId} could not be fetched: ${(error as Error).message}`);
      }
    };
    for (let start = 0; start < wanted.length; start += 4) {
      await Promise.all(wanted.slice(start, start + 4).map((agent) => fetchOne(agent.id, agent.icon!)));
    }
  }

  private loadSnapshot(): { index: RegistryIndex; source: 'snapshot'; takenAt: string } {
    const file = this.options.snapshotFile ?? ownFile('main/host/agents/registry/snapshot.json');
    const snapshot = snapshotSchema.parse(JSON.parse(readDataText(file)));
    // Checked once, as a fetched icon is: small, and SVG.
    this.shippedIcons = Object.fromEntries(
      Object.entries(snapshot.icons).filter(([, svg]) => Buffer.byteLength(svg) <= MAX_ICON_BYTES && looksLikeSvg(svg)),
    );
    return { index: parseRegistryIndex(JSON.stringify(snapshot.index)), source: 'snapshot', takenAt: snapshot.takenAt };
  }

  /** The copy kept from the last good refresh, if any. */
  private loadKept(): { index: RegistryIndex; source: 'downloaded'; takenAt: string } | undefined {
    if (!this.state?.fetchedAt) {
      return undefined;
    }
    try {
      return {
        index: parseRegistryIndex(readDataText(path.join(this.folder, 'index.json'))),
        source: 'downloaded',
        takenAt: this.state.fetchedAt,
      };
    } catch (error) {
      this.options.log?.(
        `The kept copy of the agent registry cannot be read (${(error as Error).message}); using the list Baton shipped with.`,
      );
      return undefined;
    }
  }

  private loadState(): StoredState | undefined {
    try {
      return stateSchema.parse(JSON.parse(readDataText(path.join(this.folder, 'state.json'))));
    } catch {
      return undefined;
    }
  }

  private saveState(state: StoredState): void {
    try {
      writeDataFile(path.join(this.folder, 'state.json'), JSON.stringify(state));
    } catch (error) {
      this.options.log?.(`Could not keep the agent registry's state: ${(error as Error).message}`);
    }
  }

  private changed(): void {
    for (const listener of this.listeners) {
      listener();
    }
  }
}

/** An address as typed: a URL is kept, a path becomes a `file:` URL. */
export function normalizeAddress(raw: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || raw.startsWith('file:') ? raw : pathToFileURL(path.resolve(raw)).href;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A response's body as text, refused past `limit` bytes. */
async function readLimited(response: Response, limit: number, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    throw new Error(`${url} is larger than ${limit} bytes`);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > limit) {
    throw new Error(`${url} is larger than ${limit} bytes`);
  }
  return body.toString('utf8');
}

/** Why a fetch failed, in a few words (the cause's code: ENOTFOUND, ECONNREFUSED, a timeout). */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError' || cause?.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  }
  if (cause?.code === 'UND_ERR_SOCKET') {
    return 'the connection was closed before it answered';
  }
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
