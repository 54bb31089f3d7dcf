// Where a server may listen: anywhere with keys, only on the machine itself without them.
import { isIPv4 } from "node:net";

/** Whether `host` is this machine alone: `localhost`, 127.0.0.0/8 or ::1 (bracketed or not, or IPv4-mapped). */
export function isLoopback(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost" || bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice("::ffff:".length) : bare;
  return isIPv4(v4) && v4.startsWith("127.");
}

/**
 * Whether a server may listen on `host`: always with a key file; without one, only on
 * loopback (`0.0.0.0`, `::` and every other address would serve the network unauthenticated).
 */
export function listenAllowed(host: string, hasKeys: boolean): boolean {
  return hasKeys || isLoopback(host);
}
