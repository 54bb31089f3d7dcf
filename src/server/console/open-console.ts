// What a server needs to serve the console: its sealed-ticket keys, from the console secret
// and the signed-out list kept in one directory (default: fisk-ai's state home).
import { join } from "node:path";
import { fiskStateHome } from "../../runstate/state-dir.js";
import { consoleSecret } from "./console-secret.js";
import { ConsoleTickets } from "./console-tickets.js";
import { RevokedTickets } from "./revoked-tickets.js";

/** How long a console sign-in lasts. */
export const SIGN_IN_TTL_MS = 12 * 60 * 60 * 1000;

/** The console's sign-in tickets, their secret and signed-out list in `dir` (default `$XDG_STATE_HOME/fisk-ai/console`). */
export async function openConsoleTickets(env: NodeJS.ProcessEnv, dir = join(fiskStateHome(env), "console")): Promise<ConsoleTickets> {
  const secret = await consoleSecret(join(dir, "secret"), env);
  return new ConsoleTickets(secret, await RevokedTickets.open(join(dir, "signed-out")), SIGN_IN_TTL_MS);
}
