#!/usr/bin/env node
// The fisk-ai command. A thin layer over the library: it parses, calls, and prints.
import { readFileSync } from "node:fs";

const HELP = `fisk-ai: a durable agent runtime

Usage:
  fisk-ai run [PROMPT] [--config FILE] [--checkpoint] [--name ID] [--resume ID]
                       [--force] [--chat] [--state-dir DIR] [--model M]
  fisk-ai session ls [--json]
  fisk-ai session show ID [--transcript] [--json]
  fisk-ai session rm ID...
  fisk-ai --help | --version

Sessions are journaled under $XDG_STATE_HOME/fisk-ai/runs (or ~/.local/state/fisk-ai/runs).
Not yet available in this version: run, session (they are being built).
`;

const EXIT_USAGE = 2;

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

function main(argv: string[]): number {
  const [command] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v") {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === "run" || command === "session") {
    process.stderr.write(`fisk-ai: '${command}' is not available in this version yet; see 'fisk-ai --help'\n`);
    return EXIT_USAGE;
  }
  process.stderr.write(`fisk-ai: unknown command '${command}': see 'fisk-ai --help'\n`);
  return EXIT_USAGE;
}

process.exitCode = main(process.argv.slice(2));
