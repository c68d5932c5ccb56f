/**
 * npm's failures said in one sentence: the registry it could not reach (with the setting for a
 * mirror), a package (or a platform part of one) the registry does not have, or else npm's last
 * meaningful line: never its usage text.
 */

/** npm's codes for a registry it could not reach (no network, a name that does not resolve, no answer). */
const NETWORK_CODES = /\b(EAI_AGAIN|ENOTFOUND|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|EHOSTUNREACH)\b/;

/** Says so plainly when npm failed because it could not reach its registry, naming the setting for a mirror. */
export function unreachableRegistry(tail: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const code = NETWORK_CODES.exec(tail)?.[1];
  if (!code) {
    return undefined;
  }
  const registry = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY ?? 'https://registry.npmjs.org/';
  return `npm cannot reach the npm registry (${registry}: ${code}). Check the network, or point npm at a mirror you can reach (the npm_config_registry setting, or "registry" in your .npmrc).`;
}

/** The package (and version) npm says its registry does not have, if that is why it failed. */
export function missingPackage(tail: string): string | undefined {
  const notarget = /No matching version found for (\S+?)\.?\s*$/m.exec(tail) ?? /notarget .*?for (\S+?)\.?\s*$/m.exec(tail);
  if (notarget?.[1]) {
    return notarget[1];
  }
  const notFound =
    /404 Not Found - GET \S+\/(@[^/\s]+%2f[^/\s]+|[^/\s@][^/\s]*)(?:\/-\/\S+)?\b/.exec(tail) ??
    /'(\S+)' is not in this registry/.exec(tail);
  return notFound?.[1] ? decodeURIComponent(notFound[1]) : undefined;
}

/**
 * A package built per platform names the part for this machine in its optional dependencies: the
 * one `missing` is, or would be, when npm installed the package but not that part.
 */
export function platformPart(optionalDependencies: Readonly<Record<string, string>>, platform: string, arch: string): string | undefined {
  const os = platform === 'win32' ? 'windows' : platform;
  const names = Object.keys(optionalDependencies);
  const exact = names.filter((name) => name.endsWith(`-${os}-${arch}`) || name.endsWith(`-${platform}-${arch}`));
  const chosen = exact[0] ?? names.find((name) => name.includes(`-${os}-${arch}`) || name.includes(`-${platform}-${arch}`));
  return chosen ? `${chosen}@${optionalDependencies[chosen]}` : undefined;
}

/** npm's lines that only name a field of the error (`code ENOENT`, `syscall open`, `path …`), not what went wrong. */
const FIELD_LINE = /^(code|syscall|path|errno|dest|signal|command|cwd|workspace|location|A complete log of this run)\b/i;
/** Lines of npm's usage text (printed after some errors, `npm ci` among them). */
const USAGE_LINE = /^(Usage:|npm \w+ \[|npm <command>|Clean install a project|Options:|\[--|aliases:|Run "npm help)/i;

/**
 * npm's first meaningful error line: what went wrong, without the fields around it or its usage
 * text ("enoent ENOENT: no such file…" → "ENOENT: no such file…"); else its last line.
 */
export function lastMeaningfulLine(tail: string): string | undefined {
  const errors = tail
    .split('\n')
    .filter((line) => /^npm (error|ERR!)/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((line) => line !== '' && !FIELD_LINE.test(line) && !USAGE_LINE.test(line) && !line.startsWith('['));
  const first = errors[0]?.replace(/^[a-z]+ (?=[A-Z`])/, '');
  return (
    first ??
    tail
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1)
  );
}
