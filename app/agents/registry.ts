/**
 * The ACP Registry's format (`agentclientprotocol/registry`: FORMAT.md, agent.schema.json): the
 * index `registry.json` is `{version, agents, extensions}`; each agent has an id, a name, an exact
 * version, a description and at least one distribution (`npx` and `uvx` packages, or `binary`
 * archives per platform), and optionally a repository, a website, authors, a license and an icon.
 * An index is refused as a whole only when it is not one; an entry that breaks the format is left
 * out with why, so one bad entry does not hide the other forty.
 */
import { z } from 'zod';

/** The platforms a `binary` distribution is keyed by. */
export const registryPlatforms = [
  'darwin-aarch64',
  'darwin-x86_64',
  'linux-aarch64',
  'linux-x86_64',
  'windows-aarch64',
  'windows-x86_64',
] as const;

/** One of {@link registryPlatforms}. */
export type RegistryPlatform = (typeof registryPlatforms)[number];

const envSchema = z.record(z.string(), z.string());

/** An `npx` or `uvx` distribution: an exact package spec, its arguments and environment (`cmd` in newer entries). */
export const packageDistributionSchema = z.object({
  package: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: envSchema.default({}),
  cmd: z.string().min(1).optional(),
});

/** One platform's archive of a `binary` distribution: where, what to run in it, and its checksum when the entry gives one. */
export const binaryTargetSchema = z.object({
  archive: z.string().url(),
  cmd: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: envSchema.default({}),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
});

/** One agent of the registry. */
export const registryAgentSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'an id is lowercase letters, digits and hyphens'),
  name: z.string().min(1),
  version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+/, 'a version is exact (x.y.z)'),
  description: z.string().min(1),
  repository: z.string().optional(),
  website: z.string().optional(),
  authors: z.array(z.string()).default([]),
  license: z.string().optional(),
  icon: z.string().optional(),
  distribution: z
    .object({
      binary: z.partialRecord(z.enum(registryPlatforms), binaryTargetSchema).optional(),
      npx: packageDistributionSchema.optional(),
      uvx: packageDistributionSchema.optional(),
    })
    .refine(
      (distribution) => distribution.binary !== undefined || distribution.npx !== undefined || distribution.uvx !== undefined,
      'an entry needs at least one distribution',
    ),
});

/** One agent of the registry. */
export type RegistryAgent = z.infer<typeof registryAgentSchema>;

/** The index as a whole, before its entries are checked one by one. */
const indexShapeSchema = z.object({
  version: z.string().regex(/^1\.[0-9]+\.[0-9]+/, 'Baton reads version 1 of the registry format'),
  agents: z.array(z.unknown()),
  extensions: z.array(z.unknown()).default([]),
});

/** An index as Baton keeps it: its agents, and the entries left out with why. */
export type RegistryIndex = { version: string; agents: RegistryAgent[]; skipped: Array<{ id: string; reason: string }> };

/** Reads an index; throws an Error saying why when the text is not one (the last good copy is then kept). */
export function parseRegistryIndex(text: string): RegistryIndex {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const shape = indexShapeSchema.safeParse(json);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    throw new Error(`it is not a registry index: ${issue ? `${issue.path.join('.') || 'the index'}: ${issue.message}` : 'wrong shape'}`);
  }
  const agents: RegistryAgent[] = [];
  const skipped: RegistryIndex['skipped'] = [];
  const seen = new Set<string>();
  for (const raw of shape.data.agents) {
    const parsed = registryAgentSchema.safeParse(raw);
    const id =
      typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : '(no id)';
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      skipped.push({ id, reason: issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'not an agent entry' });
    } else if (seen.has(parsed.data.id)) {
      skipped.push({ id, reason: 'listed twice' });
    } else {
      seen.add(parsed.data.id);
      agents.push(parsed.data);
    }
  }
  if (agents.length === 0 && shape.data.agents.length > 0) {
    throw new Error(
      `none of its ${shape.data.agents.length} entries is an agent Baton can read (first: ${skipped[0]?.id}: ${skipped[0]?.reason})`,
    );
  }
  return { version: shape.data.version, agents, skipped };
}

/** The registry's name of a platform and processor (Node's `process.platform` and `process.arch`), if it has one. */
export function registryPlatform(platform: string, arch: string): RegistryPlatform | undefined {
  const os = platform === 'win32' ? 'windows' : platform;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  const key = cpu ? `${os}-${cpu}` : undefined;
  return registryPlatforms.find((candidate) => candidate === key);
}

/** How an agent is got on a platform: the first of its distributions that works there. */
export type RegistryDistribution =
  | { kind: 'npx'; package: string; args: string[]; env: Record<string, string>; cmd?: string }
  | { kind: 'binary'; archive: string; cmd: string; args: string[]; env: Record<string, string>; sha256?: string }
  | { kind: 'uvx'; package: string; args: string[]; env: Record<string, string> };

/**
 * The distribution Baton uses on a platform: an archive made for it, else the npm package, else
 * the Python package; undefined when there is none for this platform.
 */
export function distributionFor(agent: RegistryAgent, platform: RegistryPlatform | undefined): RegistryDistribution | undefined {
  const binary = platform ? agent.distribution.binary?.[platform] : undefined;
  if (binary) {
    return {
      kind: 'binary',
      archive: binary.archive,
      cmd: binary.cmd,
      args: binary.args,
      env: binary.env,
      ...(binary.sha256 ? { sha256: binary.sha256.toLowerCase() } : {}),
    };
  }
  const { npx, uvx } = agent.distribution;
  if (npx) {
    return { kind: 'npx', package: npx.package, args: npx.args, env: npx.env, ...(npx.cmd ? { cmd: npx.cmd } : {}) };
  }
  if (uvx) {
    return { kind: 'uvx', package: uvx.package, args: uvx.args, env: uvx.env };
  }
  return undefined;
}

/** The name of an npm package spec without its version (`@scope/name@1.2.3` → `@scope/name`). */
export function npmPackageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** True when the text reads as SVG markup (icons are shown as images, never as markup). */
export function looksLikeSvg(text: string): boolean {
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text);
}
