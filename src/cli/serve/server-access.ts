// Who `fisk-ai serve` lets in. With --keys FILE: the holders of the keys the file lists (read
// again when it changes and on SIGHUP; a stream closes once its key is revoked). Without: the
// machine's user, on loopback alone, and only through the server's own names, so a web page
// in a browser on the same machine cannot reach it (hostGuard).
import { hostGuard, loopbackHosts, type RequestCheck } from "../../server/auth/host-guard.js";
import { watchKeyFile } from "../../server/auth/key-file-watch.js";
import { localAuthenticator } from "../../server/auth/local-authenticator.js";
import type { FiskServer } from "../../server/create-server.js";
import type { ServerOptions } from "../../server/server-context.js";
import { thisUser } from "../../session/this-user.js";
import type { CommandIO } from "../context/command-io.js";

/** The server's access options, and what the command does with them as it runs. */
export interface ServerAccess {
  options: Pick<ServerOptions, "authenticate" | "stillValid" | "checkRequest">;
  /** Told the server and the port it listens on, which the Host check and the key file's changes need. */
  listening(server: FiskServer, port: number): void;
  /** Reads the key file again (SIGHUP). */
  reload(): void;
  /** Stops watching the key file. */
  close(): void;
}

export async function serverAccess(flags: { keys?: string; allowHost?: string[] }, io: CommandIO): Promise<ServerAccess> {
  const allowed = flags.allowHost ?? [];
  let check: RequestCheck | undefined;
  const checkRequest: RequestCheck = (request) => check?.(request);
  if (flags.keys === undefined) {
    return {
      options: { authenticate: localAuthenticator(thisUser()), checkRequest },
      listening: (_server, port) => {
        check = hostGuard([...loopbackHosts(port), ...allowed]);
      },
      reload: () => undefined,
      close: () => undefined,
    };
  }
  let server: FiskServer | undefined;
  const keys = await watchKeyFile(flags.keys, {
    onReload: (error) => {
      io.stderr.write(
        error === undefined ? `read the key file ${flags.keys} again\n` : `fisk-ai serve: ${error.message}; no key is accepted until it is fixed\n`,
      );
      // A stream of a key revoked by this read ends now, not at its next event.
      server?.recheckStreams();
    },
  });
  return {
    options: { authenticate: keys.authenticate, stillValid: keys.isValid, ...(allowed.length === 0 ? {} : { checkRequest }) },
    listening: (listened) => {
      server = listened;
      if (allowed.length > 0) check = hostGuard(allowed);
    },
    reload: () => void keys.reload(),
    close: () => keys.close(),
  };
}
