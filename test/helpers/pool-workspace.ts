// A workspace for the worker pool's tests: an agent.yaml of the script provider (or of
// the strict fake Anthropic server, pool-model.ts) whose tool logs each execution, and the
// directory it ran in, to side-effect files before it waits on a gate file, so a test can
// kill or stop a worker mid-tool and count what ran again, and where.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JournalRecord } from "../../src/runstate/records/records.js";
import { startCli, type CliRun } from "./cli-harness.js";
import type { FakeServer } from "./fake-anthropic-server.js";
import { POOL_API_KEY } from "./pool-model.js";
import { journalRecords } from "./journal-file.js";
import { eventually } from "./eventually.js";

export interface PoolWorkspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  openGate(): void;
  /** The side-effect lines, in the order the tools wrote them. */
  executions(): string[];
  /** The directory each execution ran in, in the same order. */
  directories(): string[];
  journal(runId: string): JournalRecord[];
  /** The run ids with an entry in the file queue. */
  queued(): string[];
  /** A worker process on this workspace's agent.yaml. */
  worker(extra?: string[]): CliRun;
}

/** `system` changes the agent's fingerprint, for a worker that must not take another agent's runs. */
export function writePoolConfig(
  dir: string,
  file = "agent.yaml",
  system = "You are a pool test agent.",
  confirm = false,
  model: "script" | "fake" = "script",
): void {
  const provider =
    model === "script"
      ? "provider: script\nmodel: script-test\nscript: ./notes.script.yaml"
      : "provider: anthropic\nmodel: claude-sonnet-4-5\nretry: { max_attempts: 3, base_delay: 10ms }";
  writeFileSync(
    join(dir, file),
    `${provider}
system: ${system}
tools:
  - name: note
    description: Append a line to the notes
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; pwd >> "$SIDE_LOG.pwd"; while [ ! -e "$GATE" ]; do sleep 0.02; done; sleep "\${TOOL_SLEEP:-0}"; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    on_crash: rerun
    confirm: ${confirm}
session: { state_dir: ./state }
`,
  );
}

/** `model`: the strict fake server the agent calls (pool-model.ts), instead of the script provider. */
export function poolWorkspace(dir: string, { gateOpen = true, model }: { gateOpen?: boolean; model?: FakeServer } = {}): PoolWorkspace {
  mkdirSync(dir, { recursive: true });
  const sideLog = join(dir, "side-effects.log");
  const gate = join(dir, "gate");
  if (gateOpen) writeFileSync(gate, "");
  writePoolConfig(dir, undefined, undefined, undefined, model === undefined ? "script" : "fake");
  writeFileSync(
    join(dir, "notes.script.yaml"),
    `turns:
  - tool_calls: [{ name: note, input: { text: one } }]
  - tool_calls: [{ name: note, input: { text: two } }]
  - text: "two notes written"
`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    SIDE_LOG: sideLog,
    GATE: gate,
    NO_COLOR: "1",
    ...(model === undefined ? {} : { ANTHROPIC_API_KEY: POOL_API_KEY, ANTHROPIC_BASE_URL: model.url }),
  };
  const lines = (path: string) =>
    existsSync(path)
      ? readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line !== "")
      : [];
  return {
    dir,
    env,
    openGate: () => writeFileSync(gate, ""),
    executions: () => lines(sideLog),
    directories: () => lines(`${sideLog}.pwd`),
    journal: (runId) => journalRecords(join(dir, "state", `${runId}.json`)),
    queued: () =>
      existsSync(join(dir, "state", "queue"))
        ? readdirSync(join(dir, "state", "queue"))
            .filter((name) => name.endsWith(".json"))
            .map((name) => name.slice(0, -5))
        : [],
    worker: (extra = []) => startCli(["worker", "--poll", "20", ...extra], { cwd: dir, env }),
  };
}

/** The record kinds of a journal, in order: meta, assistant, tool_result, terminal... */
export function kinds(records: readonly JournalRecord[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

/** Everything a process printed on stdout so far, gathered from the moment this is called (call it right after starting the process). */
export function stdoutLines(run: CliRun): () => string {
  let text = "";
  run.child.stdout?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

/** The workers a test file starts: what each printed so far, a wait for one of its lines, and their end. */
export class StartedWorkers {
  readonly #printed = new Map<CliRun, () => string>();

  /** Keeps what `worker` prints, to wait on; returns it. */
  add(worker: CliRun): CliRun {
    this.#printed.set(worker, stdoutLines(worker));
    return worker;
  }

  /** What `worker` printed so far. */
  output(worker: CliRun): string {
    return this.#printed.get(worker)?.() ?? "";
  }

  /**
   * Waits until `worker` printed a line matching `line`; a timeout says what it printed
   * instead. A worker's start and a run on a loaded machine can take a while.
   */
  async printedLine(worker: CliRun, line: RegExp, timeoutMs = 60_000): Promise<void> {
    await eventually(() => line.test(this.output(worker)), `a worker to print ${String(line)}`, { timeoutMs }).catch((error: Error) => {
      throw new Error(`${error.message}; it printed:\n${this.output(worker)}${worker.stderr()}`);
    });
  }

  /** Waits until `worker` printed `times` lines that start with `prefix` (a park each round, say). */
  async printedTimes(worker: CliRun, prefix: string, times: number): Promise<void> {
    const count = () =>
      this.output(worker)
        .split("\n")
        .filter((line) => line.startsWith(prefix)).length;
    await eventually(() => count() === times, `${prefix} printed ${times} times`);
  }

  /** SIGKILLs every worker, whatever the test asserted, and waits until each is gone. */
  async killAll(): Promise<void> {
    for (const worker of this.#printed.keys()) worker.child.kill("SIGKILL");
    await Promise.all([...this.#printed.keys()].map((worker) => worker.done));
  }
}

/** What a chaos run needs of a workspace: its executions, its queue and journals, and a started worker (on whatever store). */
export type ChaosWorkspace = Pick<PoolWorkspace, "executions" | "queued" | "journal"> & { startWorker(): CliRun };

/**
 * The pool's chaos run over `runs` already submitted: three workers, a random one SIGKILLed and
 * replaced after a tool starts, three times; then every run ends with each model turn journaled
 * once, and the tools ran at least once a call and at most once more a kill.
 */
export async function poolChaos(ws: ChaosWorkspace, runs: readonly string[]): Promise<void> {
  const pool = [ws.startWorker(), ws.startWorker(), ws.startWorker()];
  let kills = 0;
  for (let round = 0; round < 3 && ws.queued().length > 0; round++) {
    const seen = ws.executions().length;
    await eventually(() => ws.executions().length > seen || ws.queued().length === 0, "a tool to run");
    const index = Math.floor(Math.random() * pool.length);
    (pool[index] as CliRun).child.kill("SIGKILL");
    await (pool[index] as CliRun).done;
    kills++;
    pool[index] = ws.startWorker();
  }
  await eventually(() => ws.queued().length === 0, "every run to end", { timeoutMs: 120_000 });
  for (const runId of runs) {
    const journal = ws.journal(runId);
    assert.deepEqual(
      kinds(journal).filter((kind) => kind !== "terminal"),
      ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant"],
      `${runId}: each model turn once`,
    );
    assert.deepEqual(journal.at(-1), { ...journal.at(-1), terminal: { reason: "completed" } });
  }
  const executions = ws.executions().length;
  assert.ok(executions >= runs.length * 2 && executions <= runs.length * 2 + kills, `${executions} executions for ${runs.length * 2} calls and ${kills} kills`);
  for (const worker of pool) worker.child.kill("SIGTERM");
  await Promise.all(pool.map((worker) => worker.done));
}
