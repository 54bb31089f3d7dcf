// The scenarios of the power-cut test: each does one thing a user does to a file store,
// recorded, and resumes or repeats it after each cut as the user would. Tools log each run
// to the explorer's list, outside the simulated disk: `note` reruns after a crash, `send`
// (on_crash: never) does not.
import { join } from "node:path";
import {
  agentTool,
  approve,
  compactSession,
  defineTool,
  exportJournal,
  fold,
  forkSession,
  importJournal,
  isFiskError,
  moveSession,
  FileQueue,
  type FileStore,
  fileQueueDir,
  runAgent,
  ScriptProvider,
  submitRun,
  undoCompaction,
  Worker,
  type RunAgentOptions,
  type Tool,
} from "../../src/index.js";
import { pruneSessions } from "../../src/session/prune-sessions.js";
import { holdsSession } from "../../src/session/move-session.js";
import type { ScriptSource } from "../../src/llm/script-provider.js";
import type { Scenario, ScenarioContext, StateView } from "./power-cut-explorer.js";

function loggingTools(context: ScenarioContext): Tool[] {
  const tool = (name: string, onCrash: "rerun" | "never") =>
    defineTool({
      name,
      description: `${name}s a line`,
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      onCrash,
      run: (input, call) => {
        context.executions.push({ call: `${call.run?.runId}/${call.run?.toolUseId}`, tool: name, atOp: context.opsSoFar() });
        return `${name} ${String(input.text)}`;
      },
    });
  const deploy = defineTool({
    name: "deploy",
    description: "deploys, once approved",
    input: { type: "object" },
    confirm: true,
    run: (_input, call) => {
      context.executions.push({ call: `${call.run?.runId}/${call.run?.toolUseId}`, tool: "deploy", atOp: context.opsSoFar() });
      return "deployed";
    },
  });
  return [tool("note", "rerun"), tool("send", "never"), deploy];
}

/** A turn that calls `note` with each text, then `send` with the last. */
const TURNS = {
  batch: {
    text: "Noting and sending.",
    tool_calls: [
      { name: "note", input: { text: "one" } },
      { name: "send", input: { text: "two" } },
    ],
  },
  note: (text: string) => ({ tool_calls: [{ name: "note", input: { text } }] }),
  answer: (text: string) => ({ text }),
  call: (name: string, input: Record<string, unknown>) => ({ tool_calls: [{ name, input }] }),
};

function agent(context: ScenarioContext, script: ScriptSource, dir: "runs" | "other" = "runs"): Omit<RunAgentOptions, "prompt"> {
  return {
    provider: new ScriptProvider(script),
    model: "scripted",
    tools: loggingTools(context),
    parallelTools: true,
    store: context.store(dir),
    retry: { attempts: 1 },
  };
}

/**
 * Resumes session `runId` of store `dir` when the state holds it and it is not over: the
 * resume must complete it (or stop where `stopsAt` allows). A session the cut took whole was never acknowledged.
 */
async function resumeIfOpen(
  context: ScenarioContext,
  state: StateView,
  runId: string,
  script: ScriptSource,
  options: { dir?: "runs" | "other"; extra?: Partial<RunAgentOptions>; ends?: readonly string[] } = {},
): Promise<string[]> {
  const dir = options.dir ?? "runs";
  const records = state.journals.get(`${dir}/${runId}`);
  if (records === undefined || records.length === 0) return [];
  if (fold(records).terminal?.reason === "completed" && options.extra?.followUp === undefined) return [];
  try {
    const outcome = await runAgent({ ...agent(context, script, dir), resume: runId, ...options.extra });
    const ends = options.ends ?? ["completed"];
    return ends.includes(outcome.reason) ? [] : [`the resume of ${dir}/${runId} ended ${outcome.reason}, not ${ends.join(" or ")}`];
  } catch (error) {
    return [`the resume of ${dir}/${runId} failed: ${(error as Error).message}`];
  }
}

const ONE_SHOT: ScriptSource = { turns: [TURNS.batch, TURNS.note("three"), TURNS.answer("Noted, sent, noted.")] };

export const oneShot: Scenario = {
  name: "a one-shot run with a parallel batch",
  async run(context) {
    await runAgent({ ...agent(context, ONE_SHOT), prompt: "Note, send, note", runId: "oneshot" });
  },
  resume: (context, state) => resumeIfOpen(context, state, "oneshot", ONE_SHOT),
};

/** A script that answers from its last turn on, however many more turns a resume asks for. */
function script(...turns: Record<string, unknown>[]): ScriptSource {
  return { turns, repeat_from: turns.length };
}

/** A completed session `runId` in store `dir`, made before the recording. */
async function completedSession(context: ScenarioContext, runId: string, dir: "runs" | "other" = "runs"): Promise<void> {
  await runAgent({ ...agent(context, FOLLOWED, dir), prompt: "Note twice", runId });
}

const FOLLOWED = script(TURNS.note("first"), TURNS.note("second"), TURNS.answer("Noted twice."), TURNS.answer("More."));

const CHAT = script(TURNS.note("a"), TURNS.answer("A."), TURNS.answer("B."), TURNS.note("c"), TURNS.answer("C."));

export const chat: Scenario = {
  name: "a chat with follow-ups",
  async run(context) {
    const prompts = ["and then?", "note c", undefined];
    await runAgent({
      ...agent(context, CHAT),
      prompt: "Note a",
      runId: "chat",
      // Listing between turns, as `session ls` in another terminal would: the summary cache is written too.
      nextPrompt: async () => {
        await context.store().list();
        return prompts.shift();
      },
    });
  },
  resume: (context, state) => resumeIfOpen(context, state, "chat", CHAT, { extra: { nextPrompt: async () => undefined }, ends: ["suspended", "completed"] }),
};

export const compaction: Scenario = {
  name: "a compaction and its undo",
  prepare: (context) => completedSession(context, "compacted"),
  async run(context) {
    const store = context.store();
    await compactSession({
      store,
      session: "compacted",
      provider: new ScriptProvider(FOLLOWED),
      model: "scripted",
      tools: loggingTools(context),
      keepRecent: 2,
      window: 100_000,
    });
    await undoCompaction({ store, session: "compacted" });
  },
  resume: (context, state) => resumeIfOpen(context, state, "compacted", FOLLOWED, { extra: { followUp: "once more" } }),
};

const PARKED = script(TURNS.call("deploy", {}), TURNS.answer("Deployed."));

export const park: Scenario = {
  name: "a park for approval, a decision and the resume",
  async run(context) {
    await runAgent({ ...agent(context, PARKED), prompt: "Deploy", runId: "parked" });
    await approve(context.store(), "parked");
    await runAgent({ ...agent(context, PARKED), resume: "parked" });
  },
  // Cut before the decision was durable, the resume parks it again: that is for the operator to decide again.
  resume: (context, state) => resumeIfOpen(context, state, "parked", PARKED, { ends: ["completed", "awaiting_approval"] }),
};

export const fork: Scenario = {
  name: "a fork",
  prepare: (context) => completedSession(context, "base"),
  async run(context) {
    await forkSession(context.store(), "base", { name: "forked", at: 3 });
  },
  async resume(context, state) {
    const problems = state.journals.has("runs/base") ? [] : ["the session forked from is gone"];
    return [...problems, ...(await resumeIfOpen(context, state, "forked", FOLLOWED))];
  },
};

export const imported: Scenario = {
  name: "an import",
  prepare: (context) => completedSession(context, "exported", "other"),
  async run(context) {
    const { pieces } = await exportJournal(context.store("other"), "exported");
    await importJournal(context.store(), pieces);
    await importJournal(context.store(), pieces, { name: "renamed" });
  },
  async resume(context, state) {
    const problems: string[] = [];
    for (const runId of ["exported", "renamed"]) problems.push(...(await resumeIfOpen(context, state, runId, FOLLOWED, { extra: { followUp: "once more" } })));
    return problems;
  },
};

/** A resume of the original of the moved session, in the store it leaves: what it rejects with, or how it ends. */
function resumeOriginal(context: ScenarioContext): Promise<unknown> {
  const movedHeld = () => holdsSession(context.store("other"), "moving");
  return runAgent({ ...agent(context, FOLLOWED), resume: "moving", followUp: "here?", movedHeld }).catch((error: unknown) => error);
}

export const move: Scenario = {
  name: "a move between stores",
  prepare: (context) => completedSession(context, "moving"),
  async run(context) {
    await moveSession(context.store(), context.store("other"), "moving", join(context.root, "other"));
  },
  async resume(context, state) {
    const records = state.journals.get("runs/moving");
    if (records === undefined) return ["the session being moved is gone from its store"];
    // Never none that goes on, never two: the mark counts only once the other store holds the session.
    const marked = fold(records).moved !== undefined;
    const there = await holdsSession(context.store("other"), "moving");
    if (!marked && there) return ["both stores hold the session unmarked: two copies would go on"];
    if (marked && !there) {
      const resumed = await resumeOriginal(context);
      return isFiskError(resumed) ? [`the marked original, not yet held there, refuses to resume: ${resumed.message}`] : [];
    }
    try {
      await moveSession(context.store(), context.store("other"), "moving", join(context.root, "other"));
    } catch (error) {
      return [`the move run again failed: ${(error as Error).message}`];
    }
    const left = await resumeOriginal(context);
    const problems = isFiskError(left) && left.code === "ERR_MOVED" ? [] : ["the original resumed after the move, besides its copy"];
    const copy = await runAgent({ ...agent(context, FOLLOWED, "other"), resume: "moving", followUp: "there" }).catch((error: unknown) => error as Error);
    if (!("reason" in copy) || copy.reason !== "completed") problems.push(`the moved copy did not resume: ${"message" in copy ? copy.message : copy.reason}`);
    return problems;
  },
};

async function prune(context: ScenarioContext): Promise<void> {
  await pruneSessions(context.store(), { statuses: ["completed"] });
}

export const pruned: Scenario = {
  name: "a prune",
  async prepare(context) {
    for (const runId of ["old-1", "old-2", "old-3"]) await completedSession(context, runId);
    await runAgent({ ...agent(context, CHAT), prompt: "Note a", runId: "kept", nextPrompt: async () => undefined });
  },
  run: prune,
  async resume(context, state) {
    if (!state.journals.has("runs/kept")) return ["the session the prune keeps is gone"];
    await prune(context);
    const left = (await context.store().list()).filter((summary) => summary.status === "completed").map((summary) => summary.runId);
    return left.length === 0 ? [] : [`the prune run again left ${left.join(", ")}`];
  },
};

const CHILD = script(TURNS.note("child"), TURNS.answer("Child done."));
const PARENT = script(TURNS.call("helper", { prompt: "Note child" }), TURNS.note("parent"), TURNS.answer("Parent done."));

function withHelper(context: ScenarioContext): Omit<RunAgentOptions, "prompt"> {
  const parent = agent(context, PARENT);
  const helper = agentTool({
    name: "helper",
    description: "a sub-agent",
    agent: { provider: new ScriptProvider(CHILD), model: "scripted", tools: loggingTools(context), retry: { attempts: 1 } },
  });
  return { ...parent, tools: [...(parent.tools ?? []), helper] };
}

export const subAgent: Scenario = {
  name: "a sub-agent's child session",
  async run(context) {
    await runAgent({ ...withHelper(context), prompt: "Delegate", runId: "parent" });
  },
  resume: (context, state) => resumeIfOpen(context, state, "parent", PARENT, { extra: { tools: withHelper(context).tools } }),
};

const POOLED = script(TURNS.batch, TURNS.answer("Pooled done."));

/** The queue a file store's pool keeps beside it. */
function fileQueueOf(store: FileStore): FileQueue {
  return new FileQueue({ dir: fileQueueDir(store.dir), store });
}

/** The op count when submitRun returned: from then on the run must be in the queue or done. */
let submittedAt = Number.POSITIVE_INFINITY;

/** Drives the queue until the run settles (stopping there), or aborts after a while and says so. */
async function work(context: ScenarioContext, adopt: boolean): Promise<string[]> {
  const store = context.store();
  const queue = fileQueueOf(store);
  const agentOptions = agent(context, POOLED);
  const worker = new Worker({ store, queue, agents: [agentOptions], pollMs: 5, adopt, adoptEveryMs: 5, events: { settled: () => worker.stop() } });
  const timer = setTimeout(() => worker.abort(), 10_000);
  await worker.run();
  clearTimeout(timer);
  const summary = await store.summarize("pooled");
  return summary.status === "completed" ? [] : [`the pool left the run ${summary.status}`];
}

export const pooled: Scenario = {
  name: "a pool worker's run on the file queue",
  async run(context) {
    await submitRun({ store: context.store(), queue: fileQueueOf(context.store()), agent: agent(context, POOLED) }, { prompt: "Pool it", runId: "pooled" });
    submittedAt = context.opsSoFar();
    const problems = await work(context, false);
    if (problems.length > 0) throw new Error(`the recorded run: ${problems.join("; ")}`);
  },
  async resume(context, state) {
    const records = state.journals.get("runs/pooled");
    if (records === undefined || fold(records).terminal?.reason === "completed") return [];
    const queued = (await fileQueueOf(context.store()).get("pooled")) !== undefined;
    if (!queued && state.crashPoint >= submittedAt) return ["the submitted run, not done, is no longer queued"];
    // Cut between the journal and the entry: an open session no one queued, for `worker --adopt`.
    return work(context, !queued);
  },
};
