// `fisk-ai submit`: journals a session (or a follow-up to one) and queues it for the pool,
// printing its id; with --wait it follows the run to its end as `run` narrates one, and
// exits with the run's own exit code.
import { resolve } from "node:path";
import type { AgentEvents } from "../../agent/events.js";
import { loadAgent } from "../../config/load-agent.js";
import { awaitSubmitted } from "../../pool/await-submitted.js";
import { IF_RUNNING, submitFollowUp, submitRun, type IfRunning } from "../../pool/submit-run.js";
import { poolBackend } from "../../backends/pool-queue.js";
import type { JournalRecord, ToolUseBlock } from "../../runstate/records/records.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import type { Store } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import { exitCodeFor } from "../exit-codes.js";
import { stderrRenderer, styleFor } from "../run/render.js";
import { commandLine } from "../context/resume-hint.js";
import type { CommandIO } from "../context/command-io.js";
import { checkedTitle } from "../context/checked-title.js";
import { configPathFrom, storeFromFlags, type StoreFlags } from "../context/stores.js";

export interface SubmitFlags extends StoreFlags {
  name?: string;
  title?: string;
  resume?: string;
  wait?: boolean;
  ifRunning?: string;
}

export async function submitCommand(positionals: string[], flags: SubmitFlags, io: CommandIO): Promise<number> {
  if (positionals.length > 1) throw new UsageError("give the prompt as one argument (quote it)");
  const prompt = positionals[0];
  if (prompt === undefined || prompt.trim() === "") throw new UsageError('give a prompt: fisk-ai submit "what to do" --config agent.yaml');
  if (flags.resume !== undefined && flags.name !== undefined) throw new UsageError("--name names a new session: it cannot go with --resume");
  if (flags.name !== undefined) assertRunId(flags.name);
  if (flags.resume !== undefined) assertRunId(flags.resume);
  if (flags.title !== undefined) checkedTitle(flags.title, "--title");
  const ifRunning = flags.ifRunning ?? "queue";
  if (!isIfRunning(ifRunning))
    throw new UsageError(`--if-running is queue (wait behind the run), reject or interrupt (stop it at its next boundary), not ${JSON.stringify(ifRunning)}`);
  if (flags.ifRunning !== undefined && flags.resume === undefined) throw new UsageError("--if-running applies to a follow-up: add --resume ID");
  const named = storeFromFlags(flags);
  const agent = await loadAgent(configPathFrom(flags.config), { env: io.env, ...(named === undefined ? {} : { overrides: { store: named } }) });
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
    const events = stderrRenderer(io.stderr, styleFor(io.stderr, io.env), (args) => commandLine(args, where, io.env));
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

function isIfRunning(value: string): value is IfRunning {
  return (IF_RUNNING as readonly string[]).includes(value);
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
