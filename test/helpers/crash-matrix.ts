// A crash matrix: checkpointed runs of the real CLI against the strict Anthropic fake,
// SIGKILLed at seeded random instants, resumed (and sometimes killed again while resuming)
// until they complete; a resume no kill is drawn for runs in the test's own process (the built
// CLI's command line, test/helpers/in-process-cli.ts). Shared by the test (a few dozen kills)
// and the benchmark script (thousands on demand), so both check the same promises the same way.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PROTOCOLS } from "../../src/journal.js";
import { verifyJournal } from "../../src/runstate/views/journal-verify.js";
import { CLI } from "./cli-harness.js";
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from "./fake-anthropic-server.js";
import { runCliInProcess } from "./in-process-cli.js";
import { mulberry32 } from "./simulated-runs.js";
import { journalRecords } from "./journal-file.js";

const API_KEY = "sk-ant-test-matrix";
const ANSWER = "Final answer: noted, sent, noted.";

// Turn 1 is a batch of a `rerun` tool and a `never` tool, turn 2 one more `rerun` call.
const TURNS: AnthropicReply[] = [
  {
    content: [
      { type: "text", text: "Noting and sending." },
      { type: "tool_use", id: "toolu_01", name: "note", input: { text: "one" } },
      { type: "tool_use", id: "toolu_02", name: "send", input: { text: "two" } },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 100, output_tokens: 20 },
  },
  {
    content: [{ type: "tool_use", id: "toolu_03", name: "note", input: { text: "three" } }],
    stop_reason: "tool_use",
    usage: { input_tokens: 150, output_tokens: 10 },
  },
  { content: [{ type: "text", text: ANSWER }], stop_reason: "end_turn", usage: { input_tokens: 200, output_tokens: 8 } },
];

/**
 * When a kill lands. Start-up (Node, the modules, the config) is most of a short run, and
 * slower still beside the other trials: timed from the spawn, most kills would land before the
 * session exists and test nothing. So most are timed from the process's first output (its
 * session is open), over the uninterrupted run's working time and a little after; a few land
 * during start-up.
 */
const KILL_DURING_STARTUP = 0.1;
const KILL_UNTIL = 1.2;
/** A resume is killed again this often. */
const KILL_RESUME_CHANCE = 0.3;
const MAX_PROCESSES = 12;
const CONCURRENCY = 2;

export interface MatrixOptions {
  seed: number;
  /** Stop starting trials once this many kills have landed. */
  kills: number;
  onTrial?: (trial: TrialReport) => void;
}

export interface TrialReport {
  trial: number;
  parallel: boolean;
  kills: number;
  /** The kind of the journal's last record after each kill: where the kills landed. */
  killedAfter: string[];
  noteRepeats: number;
  sends: number;
  /** Empty when every promise held. */
  failures: string[];
}

export interface MatrixReport {
  seed: number;
  /** The same run uninterrupted: its answer, which every trial must match, and when it created its session and ended. */
  uninterrupted: { answer: string; createdMs: number; ms: number };
  trials: TrialReport[];
  kills: number;
  rejectedRequests: string[];
}

export async function runCrashMatrix(options: MatrixOptions): Promise<MatrixReport> {
  const root = mkdtempSync(join(tmpdir(), "fisk-ai-crash-matrix-"));
  const server = await startFakeAnthropic(
    async (request) => {
      const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
      const position = messages.filter((message) => message.role === "assistant").length;
      // A little latency, so kills land inside model calls as well as between them.
      await new Promise((resolve) => setTimeout(resolve, 5 + position * 10));
      const reply = TURNS[position];
      if (reply === undefined) throw new Error(`no turn ${position}`);
      return reply;
    },
    { apiKey: API_KEY },
  );
  const trials: TrialReport[] = [];
  let kills = 0;
  let next = 0;
  let uninterrupted: MatrixReport["uninterrupted"];
  try {
    uninterrupted = await runUninterrupted(root, server);
    const window = { startupMs: uninterrupted.createdMs, workingMs: (uninterrupted.ms - uninterrupted.createdMs) * KILL_UNTIL };
    const worker = async () => {
      while (kills < options.kills) {
        const report = await runTrial({ root, server, seed: options.seed, trial: next++, window, answer: uninterrupted.answer });
        kills += report.kills;
        trials.push(report);
        options.onTrial?.(report);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  trials.sort((a, b) => a.trial - b.trial);
  const rejectedRequests = server.requests.filter((request) => !request.accepted).map((request) => request.rejection ?? `status ${request.status}`);
  return { seed: options.seed, uninterrupted, trials, kills, rejectedRequests };
}

function workspace(root: string, name: string, server: FakeServer, parallel: boolean) {
  const dir = join(root, name);
  mkdirSync(dir);
  const sideLog = join(dir, "side-effects.log");
  writeFileSync(join(dir, "agent.yaml"), config(parallel));
  const env = { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url, SIDE_LOG: sideLog, NO_COLOR: "1" };
  return { dir, sideLog, env };
}

const START = ["run", "--checkpoint", "--name", "run", "Note, send, note"];

async function runUninterrupted(root: string, server: FakeServer): Promise<MatrixReport["uninterrupted"]> {
  const { dir, env } = workspace(root, "uninterrupted", server, false);
  const started = performance.now();
  let createdMs: number | undefined;
  const watch = setInterval(() => {
    if (createdMs === undefined && existsSync(join(dir, "state", "run.json"))) createdMs = performance.now() - started;
  }, 2);
  const result = await runOnce(START, dir, env, undefined);
  clearInterval(watch);
  if (result.code !== 0) throw new Error(`the uninterrupted run failed (${result.code}): ${result.stderr}`);
  const ms = performance.now() - started;
  return { answer: result.stdout, createdMs: createdMs ?? 0, ms };
}

/** One run, killed and resumed until it completes. Trial `trial` of seed `seed` always draws the same kill delays. */
async function runTrial(context: {
  root: string;
  server: FakeServer;
  seed: number;
  trial: number;
  window: { startupMs: number; workingMs: number };
  answer: string;
}): Promise<TrialReport> {
  const { trial } = context;
  const random = mulberry32(context.seed * 100_003 + trial);
  const parallel = random() < 0.5;
  const { dir, sideLog, env } = workspace(context.root, `trial-${trial}`, context.server, parallel);
  const report: TrialReport = { trial, parallel, kills: 0, killedAfter: [], noteRepeats: 0, sends: 0, failures: [] };
  const journalPath = join(dir, "state", "run.json");
  let answer: string | undefined;
  for (let process_ = 0; process_ < MAX_PROCESSES && answer === undefined; process_++) {
    // A kill before the session was created leaves nothing to resume: the run starts again.
    const args = existsSync(journalPath) ? ["run", "--resume", "run"] : START;
    const kill = process_ === 0 || random() < KILL_RESUME_CHANCE ? killPoint(random, context.window) : undefined;
    // A resume no kill is drawn for runs in this process: the kills are what need processes.
    const result = kill === undefined ? await runCliInProcess(args, { cwd: dir, env }) : await runOnce(args, dir, env, kill);
    if (result.signal === "SIGKILL") {
      report.kills++;
      report.killedAfter.push(lastKind(journalPath));
      // Killed after `completed` was journaled, before the answer was printed: the session
      // is done (a resume is refused), and the answer is the journal's.
      answer = completedAnswer(journalPath);
    } else if (result.code === 0) {
      answer = result.stdout;
    } else {
      report.failures.push(`process ${process_} (${args.join(" ")}) exited ${result.code}: ${result.stderr.trim().split("\n").at(-1)}`);
      break;
    }
  }
  if (answer !== undefined && answer !== context.answer)
    report.failures.push(`the answer was ${JSON.stringify(answer)}, not the uninterrupted run's ${JSON.stringify(context.answer)}`);
  if (answer === undefined && report.failures.length === 0) report.failures.push(`not completed after ${MAX_PROCESSES} processes`);
  if (existsSync(journalPath)) {
    for (const problem of verifyJournal(readFileSync(journalPath), "run").problems) report.failures.push(`journal: ${problem.message}`);
    if (lastKind(journalPath) !== "terminal") report.failures.push(`the journal ends on ${lastKind(journalPath)}, not terminal`);
  }
  const executions = existsSync(sideLog)
    ? readFileSync(sideLog, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
  const notes = executions.filter((line) => line.startsWith("note:"));
  report.noteRepeats = notes.length - new Set(notes).size;
  report.sends = executions.filter((line) => line.startsWith("send:")).length;
  // rerun: each kill cuts short at most one note call (no batch holds two); never: no repeat, ever.
  if (report.noteRepeats > report.kills) report.failures.push(`${report.noteRepeats} repeated note calls after ${report.kills} kills`);
  if (report.sends > 1) report.failures.push(`send (on_crash: never) ran ${report.sends} times`);
  for (const text of ["one", "three"]) if (!notes.includes(`note:${text}`)) report.failures.push(`note ${text} never ran`);
  return report;
}

function config(parallel: boolean): string {
  // Each tool logs its execution first, then takes a moment: a kill can land mid-tool.
  const tool = (name: string, onCrash: string) => `  - name: ${name}
    description: ${name} a line
    command: [sh, -c, 'echo "${name}:$1" >> "$SIDE_LOG"; sleep 0.03; echo "${name} $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    on_crash: ${onCrash}
`;
  return `provider: anthropic
model: claude-sonnet-4-5
system: You are a careful test agent.
tools:
${tool("note", "rerun")}${tool("send", "never")}parallel_tools: ${parallel}
retry: { max_attempts: 3, base_delay: 10ms }
session: { state_dir: ./state }
`;
}

interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A SIGKILL this long after the spawn, or after the process's first output. */
type KillPoint = { afterSpawnMs: number } | { afterOutputMs: number };

function killPoint(random: () => number, window: { startupMs: number; workingMs: number }): KillPoint {
  return random() < KILL_DURING_STARTUP ? { afterSpawnMs: random() * window.startupMs } : { afterOutputMs: random() * window.workingMs };
}

async function runOnce(args: string[], cwd: string, env: NodeJS.ProcessEnv, kill: KillPoint | undefined): Promise<ProcessResult> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let timer: NodeJS.Timeout | undefined;
  const killIn = (ms: number) => (timer ??= setTimeout(() => child.kill("SIGKILL"), ms));
  if (kill !== undefined && "afterSpawnMs" in kill) killIn(kill.afterSpawnMs);
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (kill !== undefined && "afterOutputMs" in kill) killIn(kill.afterOutputMs);
  });
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

function completedAnswer(journalPath: string): string | undefined {
  if (lastKind(journalPath) !== "terminal") return undefined;
  const records = journalRecords(journalPath);
  const terminal = records.at(-1);
  const answer = records.findLast((record) => record.protocol === PROTOCOLS.assistant);
  if (terminal?.protocol !== PROTOCOLS.terminal || terminal.terminal.reason !== "completed" || answer?.protocol !== PROTOCOLS.assistant) return undefined;
  return `${answer.assistant.message.content.map((block) => (block.type === "text" ? block.text : "")).join("")}\n`;
}

function lastKind(journalPath: string): string {
  if (!existsSync(journalPath)) return "none";
  const lines = readFileSync(journalPath, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const last = lines.at(-1);
  if (last === undefined) return "none";
  try {
    return String((JSON.parse(last) as { protocol: string }).protocol.split(".").at(-1));
  } catch {
    return "torn";
  }
}
