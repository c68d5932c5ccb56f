/** The names the web host answers to and prints: the loopback names, the bound address, a wildcard's interfaces. */
import type os from 'node:os';

/** The address to print: the one bound (IPv6 in brackets), 127.0.0.1 for `localhost`. */
export function printedHost(bindAddress: string): string {
  if (bindAddress === 'localhost') {
    return '127.0.0.1';
  }
  return bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress;
}

/**
 * The Host header names this server answers to: the loopback names, the bound address, and, for
 * a wildcard bind (0.0.0.0 or ::), every address of this machine's interfaces.
 */
export function servedHostNames(bindAddress: string, interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]>): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  const wildcard = bindAddress === '0.0.0.0' || bindAddress === '::';
  if (!wildcard && bindAddress !== 'localhost') {
    names.add(printedHost(bindAddress));
  }
  if (wildcard) {
    for (const entries of Object.values(interfaces)) {
      for (const entry of entries ?? []) {
        if (bindAddress === '0.0.0.0' && entry.family !== 'IPv4') {
          continue;
        }
        names.add(entry.family === 'IPv6' ? `[${entry.address.split('%')[0]}]` : entry.address);
      }
    }
  }
  return [...names];
}
