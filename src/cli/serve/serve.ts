// `fisk-ai serve`: its options; the handler is serve-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Serves the --config agents over HTTP (docs/server.md): start runs, follow them as Server-Sent Events, decide their parked calls, read and manage sessions; /openapi.json describes the API. Runs N in-process workers on the store's queue. SIGTERM or SIGINT stops taking requests and hands the runs back at their next boundary.",
    )
    .option("--config <FILE...>", "the agents it serves, each named by its file's base name (default: ./agent.yaml); the first names the store")
    .option("--listen <HOST:PORT>", "the address it listens on (default 127.0.0.1:7474; port 0 picks a free one): loopback only without --keys")
    .option(
      "--keys <FILE>",
      "the key file of the API keys it accepts (docs/server.md#the-key-file); without it, every request is this user's, from this machine",
    )
    .option("--allow-host <HOST...>", "more names the server may be reached by (the Host header; checked on loopback without --keys)")
    .option("--workers <N>", "runs driven at once by this process's workers (default: the CPU count; 0: none, other processes run them)")
    .option("--open", "open the console (docs/console.md) in the browser BROWSER names, else xdg-open's")
    .option("--public-url <URL>", "the URL people reach the server at, through a TLS-terminating proxy: https makes the console's cookie Secure")
    .option("--headers-timeout <MS>", "how long a client may take to send a request's headers (default 10000): past it, a 408 and the connection closed")
    .option("--request-timeout <MS>", "how long a client may take to send a whole request, its body too (default 300000); a stream is not cut by it")
    .option("--state-dir <DIR>", "where sessions are kept (default: the first config's session block)")
    .option("--store <URL>", STORE_OPTION)
    .action(action(async (args, flags) => (await import("./serve-command.js")).serveCommand(args, flags, io)));
}
