// Replay benchmark (issue 58): what a replay costs beside the run it checks, and what
// --concurrency buys. On the script provider, in memory:
// - a 500-turn session (499 tool turns, then the answer) replayed, beside the same 500 turns
//   run live with a tool that returns at once (goal: within 1.2x);
// - 100 sessions of 10 turns replayed one at a time and 8 at a time, with the script provider
//   as it is and with each model call answered 20 ms late (a model's wait).
// Rounds alternate the order of the two sides; each figure is the median. The 500-turn goal is
// on CPU time, this process's own, which other processes on the machine do not inflate.
//   npm run bench:replay            REPLAY_ROUNDS=<n> for another count (default 5)
import { tmpdir } from "node:os";
import { MemoryStore } from "../src/backends/memory/memory-store.js";
import { runAgent, type RunAgentOptions } from "../src/agent/run-agent.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import type { ModelProvider } from "../src/llm/model-provider.js";
import { replaySession } from "../src/replay/replay-session.js";
import { replaySessions } from "../src/replay/replay-sessions.js";
import { defineTool } from "../src/tools/tool.js";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { median, timed } from "./stats.js";

const COMMAND = "npm run bench:replay";
const ROUNDS = Number(process.env.REPLAY_ROUNDS ?? 5);
const LONG_TURNS = 500;
const SESSIONS = 100;
const SESSION_TURNS = 10;
const MODEL_WAIT_MS = 20;
const GOAL = 1.2;

const lookup = defineTool({ name: "lookup", description: "Look a term up", input: { type: "object" }, run: () => "found" });

function script(turns: number): Record<string, unknown>[] {
  const played: Record<string, unknown>[] = [];
  for (let turn = 1; turn < turns; turn++) played.push({ text: `turn ${turn}`, tool_calls: [{ name: "lookup", input: { q: `term ${turn}` } }] });
  played.push({ text: "done" });
  return played;
}

function late(provider: ModelProvider, ms: number): ModelProvider {
  return { name: provider.name, complete: async (...args) => (await new Promise((resolve) => setTimeout(resolve, ms)), provider.complete(...args)) };
}

function agent(turns: number, waitMs = 0): Omit<RunAgentOptions, "prompt"> {
  const provider = new ScriptProvider({ turns: script(turns) });
  return {
    provider: waitMs > 0 ? late(provider, waitMs) : provider,
    model: "script-bench",
    tools: [lookup],
    budget: { maxIterations: turns + 1, maxTokens: 1e12 },
    compaction: { auto: false },
  };
}

async function record(store: MemoryStore, runId: string, turns: number): Promise<void> {
  const outcome = await runAgent({ ...agent(turns), store, runId, prompt: "Look everything up" });
  if (outcome.reason !== "completed") throw new Error(`${runId} ended ${outcome.reason}`);
}

/** Wall time and this process's CPU time of an operation, in milliseconds. */
async function measured<T>(operation: () => Promise<T>): Promise<{ wall: number; cpu: number; value: T }> {
  const cpu = process.cpuUsage();
  const run = await timed(operation);
  const used = process.cpuUsage(cpu);
  return { wall: run.ms, cpu: (used.user + used.system) / 1000, value: run.value };
}

interface Side {
  wall: number[];
  cpu: number[];
}

async function longSession(): Promise<{ live: Side; replay: Side }> {
  const store = new MemoryStore();
  await record(store, "long", LONG_TURNS);
  const live: Side = { wall: [], cpu: [] };
  const replay: Side = { wall: [], cpu: [] };
  const add = (side: Side, run: { wall: number; cpu: number }) => (side.wall.push(run.wall), side.cpu.push(run.cpu));
  for (let round = 0; round < ROUNDS; round++) {
    const sides = [
      async () => {
        const run = await measured(() => runAgent({ ...agent(LONG_TURNS), prompt: "Look everything up" }));
        if (run.value.reason !== "completed") throw new Error(`the live run ended ${run.value.reason}`);
        add(live, run);
      },
      async () => {
        const run = await measured(() => replaySession({ store, runId: "long" }, agent(LONG_TURNS)));
        if (run.value.result !== "same") throw new Error(`the replay ${run.value.result}: ${run.value.end}`);
        add(replay, run);
      },
    ];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
  }
  return { live, replay };
}

async function manySessions(waitMs: number): Promise<{ one: number; eight: number }> {
  const store = new MemoryStore();
  const ids = Array.from({ length: SESSIONS }, (_unused, index) => `s${index}`);
  for (const id of ids) await record(store, id, SESSION_TURNS);
  const times: Record<1 | 8, number[]> = { 1: [], 8: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const concurrency of round % 2 === 0 ? ([1, 8] as const) : ([8, 1] as const)) {
      const run = await timed(() => replaySessions(store, ids, agent(SESSION_TURNS, waitMs), { concurrency }));
      if (run.value.some((report) => report.result !== "same")) throw new Error("a replay departed");
      times[concurrency].push(run.ms);
    }
  }
  return { one: median(times[1]), eight: median(times[8]) };
}

const long = await longSession();
const ratio = median(long.replay.cpu) / median(long.live.cpu);
printTable(
  `A ${LONG_TURNS}-turn session: replayed vs run live (median of ${ROUNDS} rounds, ms)`,
  ["side", "CPU", "wall", "CPU ratio"],
  [
    ["live run, tools return at once", formatMs(median(long.live.cpu)), formatMs(median(long.live.wall)), "1.00x"],
    ["replay of its recording (read from the store)", formatMs(median(long.replay.cpu)), formatMs(median(long.replay.wall)), goalRatio(ratio, ratio <= GOAL)],
  ],
  [
    `goal: the replay's CPU within ${GOAL}x of the live run's (CPU, this process's own: on a shared machine wall time measures the neighbours too)`,
    `wall ratio ${formatRatio(median(long.replay.wall) / median(long.live.wall))}`,
  ],
);
const cpu = await manySessions(0);
const waiting = await manySessions(MODEL_WAIT_MS);
printTable(
  `${SESSIONS} sessions of ${SESSION_TURNS} turns replayed (median of ${ROUNDS} rounds, ms)`,
  ["model", "--concurrency 1", "--concurrency 8", "speed-up"],
  [
    ["script provider as it is", formatMs(cpu.one), formatMs(cpu.eight), formatRatio(cpu.one / cpu.eight)],
    [`answers ${MODEL_WAIT_MS} ms late`, formatMs(waiting.one), formatMs(waiting.eight), formatRatio(waiting.one / waiting.eight)],
  ],
  [`the ${MODEL_WAIT_MS} ms row stands for a model's wait, what --concurrency is for`],
);
console.log(`\n${machineLine(tmpdir())}\n${COMMAND}, ${new Date().toISOString()}`);
