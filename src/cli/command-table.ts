// The command table: each command's name, usage and summary, which `fisk-ai --help` lists,
// and the module that defines the rest (its options, subcommands and handler), loaded only
// when the command line names it, so start-up pays for one command's definition at most.
import type { CommandModule } from "./context/command-context.js";

export interface CommandEntry {
  name: string;
  usage: string;
  summary: string;
  load: () => Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "run", usage: "[PROMPT] [options]", summary: "run the agent on PROMPT, or resume a session", load: () => import("./run/run.js") },
  {
    name: "submit",
    usage: "PROMPT --config FILE [options]",
    summary: "journal a session and queue it for the worker pool",
    load: () => import("./submit/submit.js"),
  },
  {
    name: "worker",
    usage: "--config FILE... [options]",
    summary: "take queued runs and drive them to their end, taking over those of workers that died",
    load: () => import("./worker/worker.js"),
  },
  {
    name: "serve",
    usage: "--config FILE... [options]",
    summary: "serve the agents over HTTP: start, follow and decide runs, with in-process workers",
    load: () => import("./serve/serve.js"),
  },
  {
    name: "queue",
    usage: "COMMAND [options]",
    summary: "list, withdraw and suspend the sessions queued for the worker pool",
    load: () => import("./queue/table.js"),
  },
  {
    name: "session",
    usage: "COMMAND [options]",
    summary: "list, show, verify, remove, export, import, move, fork, compact, title, search, measure and prune sessions; decide the calls they wait on",
    load: () => import("./session/table.js"),
  },
  {
    name: "replay",
    usage: "--config NEW.yaml SESSION... [options]",
    summary: "replay recorded sessions against a new agent, its tool calls answered from the recording; report where it departs",
    load: () => import("./replay/replay.js"),
  },
  {
    name: "store",
    usage: "init URL",
    summary: "make the tables of a Postgres store ahead of its first use",
    load: () => import("./store/table.js"),
  },
  {
    name: "key",
    usage: "create --name NAME --tenant TENANT --roles ROLE,...",
    summary: "make an API key for 'fisk-ai serve', shown once, and its key file entry",
    load: () => import("./key/key.js"),
  },
  {
    name: "signing-key",
    usage: "COMMAND",
    summary: "list, rotate and remove the keys approvals and answers are signed with",
    load: () => import("./signing-key/signing-key.js"),
  },
  { name: "memory", usage: "COMMAND [options]", summary: "list, show and remove the notes a model keeps", load: () => import("./memory/table.js") },
  { name: "mcp", usage: "COMMAND [options]", summary: "sign in to a remote MCP server, or out", load: () => import("./mcp/table.js") },
  { name: "init", usage: "[DIR]", summary: "write a commented agent.yaml to start from, which runs offline first", load: () => import("./init/init.js") },
  { name: "completion", usage: "bash|zsh", summary: "print a shell completion script", load: () => import("./completion/completion.js") },
];
