/**
 * When Baton may install an update: only from the feed it was packaged with (`app-update.yml`,
 * written by electron-builder from `publish`), over HTTPS, and only where the update's signature is
 * checked before it runs. Windows: electron-updater checks the installer's Authenticode signature
 * against `publisherName`, so a build without one is refused. macOS: Squirrel.Mac refuses an update
 * not signed like the running app. Linux: AppImage and deb updates carry no signature electron-updater
 * can check, so Baton does not install them itself; the person updates through their package source.
 */

/** What electron-builder writes into the packaged app's `app-update.yml` (the parts Baton reads). */
export type UpdateConfig = { provider?: string; url?: string; publisherName?: string | readonly string[] };

/** Why an automatic update is refused here, or null when it may go ahead. */
export function updateRefusal(platform: NodeJS.Platform, config: UpdateConfig | null): string | null {
  if (!config) {
    return 'this build was packaged without an update feed (publish in electron-builder.yml)';
  }
  if (config.provider === 'generic' && !/^https:\/\//.test(config.url ?? '')) {
    return `the update feed ${config.url ?? '(none)'} is not HTTPS`;
  }
  switch (platform) {
    case 'win32': {
      const publishers = typeof config.publisherName === 'string' ? [config.publisherName] : (config.publisherName ?? []);
      return publishers.length === 0
        ? "this build names no signing publisher (win.signtoolOptions.publisherName), so an update's signature could not be checked"
        : null;
    }
    case 'darwin':
      return null;
    default:
      return 'updates on this system carry no signature Baton can check; update Baton through the package you installed it from';
  }
}

/** Reads the few keys of `app-update.yml` Baton needs (flat `key: value` lines, as electron-builder writes them). */
export function parseUpdateConfig(text: string): UpdateConfig {
  const config: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const item = /^\s+-\s+(.+)$/.exec(line);
    if (item && listKey) {
      const existing = config[listKey];
      config[listKey] = [...(Array.isArray(existing) ? existing : []), unquote(item[1]!)];
      continue;
    }
    const pair = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (pair) {
      listKey = pair[2] === '' ? pair[1] : undefined;
      if (pair[2] !== '') {
        config[pair[1]!] = unquote(pair[2]!);
      }
    }
  }
  const publisher = config.publisherName;
  return {
    ...(typeof config.provider === 'string' ? { provider: config.provider } : {}),
    ...(typeof config.url === 'string' ? { url: config.url } : {}),
    ...(publisher !== undefined ? { publisherName: publisher } : {}),
  };
}

function unquote(value: string): string {
  const trimmed = value.trim();
  return /^(['"]).*\1$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}
