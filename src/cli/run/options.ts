// `fisk-ai run`'s options as data: run.ts adds them to the command, run-command.ts's flags are typed by them.
import { STORE_OPTION } from "../context/command-context.js";
import type { Options } from "../context/options.js";

export const RUN_OPTIONS = {
  config: { flag: "--config <FILE>", help: "the agent configuration (default: ./agent.yaml when it exists)" },
  checkpoint: { flag: "--checkpoint", help: "journal the run so it can be suspended (Ctrl-C) and resumed" },
  name: { flag: "--name <ID>", help: "the session id of a checkpointed run (default: a new KSUID)" },
  title: { flag: "--title <TEXT>", help: "a title for the session, shown by session ls; --resume and session show take it in place of the id" },
  chat: {
    flag: "--chat",
    help: "after each answer, ask for a follow-up (/exit, Ctrl-D or the end of stdin ends the chat; /clear starts a new session; /compact compacts this one)",
  },
  resume: {
    flag: "--resume [ID]",
    help: "resume a checkpointed session by its id or title (no ID: pick one, on a terminal); with PROMPT, a follow-up that takes the session further, even a completed one",
  },
  continue: {
    flag: "--continue",
    help: "resume the most recently updated session started in this directory that is not completed (any, with PROMPT as a follow-up)",
  },
  all: { flag: "--all", help: "--continue and the picker look at the sessions of every directory" },
  cwd: { flag: "--cwd <DIR>", help: "run the tools in DIR (default: where the session started)" },
  force: { flag: "--force", help: "resume even though the configuration changed (not the provider)" },
  stateDir: { flag: "--state-dir <DIR>", help: "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)" },
  store: { flag: "--store <URL>", help: STORE_OPTION },
  model: { flag: "--model <M>", help: "override the configured model" },
  provider: { flag: "--provider <P>", help: "override the configured provider: anthropic, openai or script" },
  outputFormat: {
    flag: "--output-format <F>",
    help: "text (default: the answer on stdout) or stream-json (every event of the run as one JSON object a line on stdout)",
  },
  approvals: {
    flag: "--approvals <MODE>",
    help: "ask (default: a confirm tool or ask_user asks on the terminal when there is one) or defer (a checkpointed run parks the call until 'session approve|deny|answer')",
  },
} as const satisfies Options;
