/**
 * Windows batch shims. npm installs agents on Windows as `.cmd` files, and Node refuses to spawn
 * those without a shell (since the 2024 fix for CVE-2024-27980). Baton runs them through
 * `cmd.exe /d /s /c` with every argument quoted and cmd's metacharacters escaped, so nothing in
 * an argument is read as a command. Elsewhere, and for real executables, the launch is unchanged.
 */
import type { LaunchSpec } from './ProcessGroup.js';

/** Characters cmd.exe treats specially even inside double quotes when escaping is on. */
const CMD_META = /([()%!^"<>&|])/g;

/**
 * One argument for `cmd.exe /s /c`: quoted for the program's own parser (backslashes before a
 * quote doubled), then every cmd metacharacter, the quotes included, escaped with "^" so cmd never
 * enters quote mode and reads nothing as syntax. A batch file re-reads its arguments (`%*`), so
 * for one the escaping is applied twice.
 */
export function quoteForCmd(argument: string, batchFile: boolean): string {
  const quoted = `"${argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
  const once = quoted.replace(CMD_META, '^$1');
  return batchFile ? once.replace(CMD_META, '^$1') : once;
}

/** The launch to use on `platform`: `.cmd` and `.bat` files go through cmd.exe. */
export function windowsShimLaunch(spec: LaunchSpec, platform: NodeJS.Platform = process.platform): LaunchSpec {
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(spec.command)) {
    return spec;
  }
  // The file's path in plain quotes (a path cannot hold a quote; it may hold spaces), its arguments fully escaped.
  const line = [`"${spec.command}"`, ...spec.args.map((argument) => quoteForCmd(argument, true))].join(' ');
  const comspec = spec.env.ComSpec ?? spec.env.COMSPEC ?? 'cmd.exe';
  return { ...spec, command: comspec, args: ['/d', '/s', '/c', `"${line}"`], verbatimArguments: true };
}
