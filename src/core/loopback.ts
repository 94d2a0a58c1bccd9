// Loopback host names: the one list of what `serve`, `ui` and the console treat as "this machine only".

/** Host names and addresses that reach this machine only (IPv6 with and without brackets). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether binding to `host` keeps a server on this machine. @example isLoopbackHost('::1') // true */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase());
}
