// `fisk-ai submit`: journals a session (or a follow-up to one) and queues it for the pool,
// printing its id; with --wait it follows the run to its end as `run` narrates one, and
// exits with the run's own exit code. Its options are data that help and completion read;
// the handler's imports load only when it runs.
import { resolve } from "node:path";
import type { Command } from "commander";
import type { AgentEvents } from "../../agent/events.js";
import type { IfRunning } from "../../pool/submit-run.js";
import type { JournalRecord, ToolUseBlock } from "../../runstate/records/records.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import type { Store } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import type { CommandIO } from "../context/command-io.js";
import { addOptions, type Flags, type Options } from "../context/options.js";
import { EXIT_CODES_POINTER, exitCodeFor } from "../exit-codes.js";

export const options = {
  config: { flag: "--config <FILE>", help: "the agent configuration (default: ./agent.yaml when it exists)" },
  name: { flag: "--name <ID>", help: "the new session's id (default: a new KSUID)" },
  title: { flag: "--title <TEXT>", help: "a title for the session" },
  resume: { flag: "--resume <ID>", help: "queue PROMPT as a follow-up to session ID" },
  wait: { flag: "--wait", help: "follow the run to its end: its narration on stderr, its answer on stdout, its exit code" },
  ifRunning: {
    flag: "--if-running <WHAT>",
    help: "with --resume, when the session is running or queued: queue (default: wait behind it), reject (exit 7) or interrupt (suspend it at its next boundary, then run this)",
  },
  stateDir: { flag: "--state-dir <DIR>", help: "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)" },
  store: { flag: "--store <URL>", help: STORE_OPTION },
} as const satisfies Options;

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command.description(
    "Journals a new session on PROMPT (or, with --resume ID, a follow-up to a session) and queues it for 'fisk-ai worker'; prints its id and exits at once. --wait follows it to its end as run does and exits with the run's exit code.",
  );
  addOptions(command, options)
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args, flags) => run(args, flags as Flags<typeof options>, io)));
}

async function run(positionals: string[], flags: Flags<typeof options>, io: CommandIO): Promise<number> {
  if (positionals.length > 1) throw new UsageError("give the prompt as one argument (quote it)");
  const prompt = positionals[0];
  if (prompt === undefined || prompt.trim() === "") throw new UsageError('give a prompt: fisk-ai submit "what to do" --config agent.yaml');
  if (flags.resume !== undefined && flags.name !== undefined) throw new UsageError("--name names a new session: it cannot go with --resume");
  const [{ loadAgent }, { awaitSubmitted }, { IF_RUNNING, submitFollowUp, submitRun }, { poolBackend }, render, { commandLine }, { checkedTitle }, stores] =
    await Promise.all([
      import("../../config/load-agent.js"),
      import("../../pool/await-submitted.js"),
      import("../../pool/submit-run.js"),
      import("../../backends/pool-queue.js"),
      import("../run/render.js"),
      import("../context/resume-hint.js"),
      import("../context/checked-title.js"),
      import("../context/stores.js"),
    ]);
  const ifRunning = checkedFlags(flags, IF_RUNNING, checkedTitle);
  const agent = await loadAgent(stores.configPathFrom(flags.config), { env: io.env, overrides: { store: stores.storeFromFlags(flags) } });
  const { store, queue } = await poolBackend(agent.openBackend((line) => io.stderr.write(`fisk-ai: ${line}\n`)));
  try {
    let runId: string;
    let fromSeq = 1;
    if (flags.resume !== undefined) {
      runId = flags.resume;
      fromSeq = (await store.summarize(runId)).lastSeq + 1;
      await submitFollowUp({ store, queue }, runId, prompt, ifRunning);
    } else {
      runId = await submitRun({ store, queue, agent: agent.spec }, { prompt, runId: flags.name, cwd: process.cwd(), title: flags.title });
    }
    if (flags.wait !== true) {
      io.stdout.write(`${runId}\n`);
      return 0;
    }
    const where = { config: agent.path, stateDir: flags.stateDir === undefined ? undefined : resolve(flags.stateDir), store: flags.store };
    const events = render.stderrRenderer(io.stderr, render.styleFor(io.stderr, io.env), (args) => commandLine(args, where, io.env));
    events.runStarted?.({
      runId,
      resumed: flags.resume !== undefined,
      checkpointed: true,
      firstSeq: fromSeq,
      afterCrash: false,
      startedAt: new Date().toISOString(),
    });
    const unheard = setTimeout(() => void sayIfNoWorker(store, runId, (args) => commandLine(args, where, io.env), io.stderr), NO_WORKER_AFTER_MS);
    unheard.unref();
    const outcome = await awaitSubmitted(store, queue, runId, { fromSeq, onRecord: narrator(events) }).finally(() => clearTimeout(unheard));
    events.runFinished?.(outcome);
    if (outcome.reason === "completed") io.stdout.write(`${(outcome.answer ?? "").replace(/\n?$/, "\n")}`);
    return exitCodeFor(outcome.reason);
  } finally {
    await queue.close();
    await store.close();
    await agent.close();
  }
}

/** The flags checked before anything is opened; the --if-running asked for (default queue). */
function checkedFlags(flags: Flags<typeof options>, ifRunningValues: readonly string[], checkedTitle: (title: string, flag: string) => unknown): IfRunning {
  if (flags.name !== undefined) assertRunId(flags.name);
  if (flags.resume !== undefined) assertRunId(flags.resume);
  if (flags.title !== undefined) checkedTitle(flags.title, "--title");
  const ifRunning = flags.ifRunning ?? "queue";
  if (!ifRunningValues.includes(ifRunning))
    throw new UsageError(`--if-running is queue (wait behind the run), reject or interrupt (stop it at its next boundary), not ${JSON.stringify(ifRunning)}`);
  if (flags.ifRunning !== undefined && flags.resume === undefined) throw new UsageError("--if-running applies to a follow-up: add --resume ID");
  return ifRunning as IfRunning;
}

/** How long `submit --wait` waits before it says that no worker has taken the run: a worker on the same machine takes it well within it. */
const NO_WORKER_AFTER_MS = 3000;

/** Says, of a run no worker holds, that it waits in the queue and how to start a worker. */
async function sayIfNoWorker(store: Store, runId: string, command: (args: readonly string[]) => string, stderr: NodeJS.WritableStream): Promise<void> {
  const held = await store.summarize(runId, { digest: false }).then(
    (summary) => summary.holder !== undefined,
    () => true,
  );
  if (!held) stderr.write(`fisk-ai: no worker has taken ${runId} yet: it waits in the queue; start one with: ${command(["worker"])}\n`);
}

/** A run's records as the events `run` narrates, so a followed run reads as a run in this terminal. */
function narrator(events: AgentEvents): (record: JournalRecord) => void {
  const uses = new Map<string, ToolUseBlock>();
  return (record) => {
    if ("assistant" in record) {
      for (const block of record.assistant.message.content) if (block.type === "tool_use") uses.set((block as ToolUseBlock).id, block as ToolUseBlock);
      events.assistantTurn?.(record.assistant);
    } else if ("tool_result" in record) {
      const use = uses.get(record.tool_result.tool_use_id);
      if (use !== undefined) events.toolFinished?.(use, record.tool_result.result, false);
    }
  };
}
