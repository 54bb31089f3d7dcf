// The CLI's command line run inside the test's own process: the same runCommandLine and
// reportFailure that the shipped process runs, without the node start and module loads a
// spawned command pays (a third of a second of CPU or more each). For a file of many calls
// of the same commands; the test keeps one spawned call of each command, which proves the
// process around it, and spawns whatever needs a process: a crash, a kill, a race.
import { Readable, Writable } from "node:stream";
import { CLI, runCli, type CliResult } from "./cli-harness.js";

/** The built CLI's own modules, which the spawned one runs: what it prints names that program. */
const BUILT: Promise<[typeof import("../../src/cli/program.js"), typeof import("../../src/cli/cli-errors.js")]> = Promise.all([
  import(new URL("./program.js", `file://${CLI}`).href),
  import(new URL("./cli-errors.js", `file://${CLI}`).href),
]);

/** The directory and environment the calls running now share, and how the next ones know they ended. */
interface Inside {
  cwd: string;
  env: string;
  calls: number;
  restore: () => void;
  left: Promise<void>;
  leave: () => void;
}

let inside: Inside | undefined;

/** Runs `fisk-ai ...args` in this process with `cwd` and `env` as its own; calls that overlap must share both. */
export async function runCliInProcess(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<CliResult> {
  const [{ runCommandLine }, { reportFailure }] = await BUILT;
  await enter(options);
  try {
    const stdout = collected();
    const stderr = collected();
    const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as unknown as NodeJS.ReadStream;
    let code: number;
    try {
      code = await runCommandLine(args, { stdin, stdout: stdout.stream, stderr: stderr.stream as NodeJS.WriteStream, env: options.env });
    } catch (error) {
      code = reportFailure(error, stderr.stream);
    }
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    leave();
  }
}

/**
 * The working directory and environment the command sees, kept while any call runs: the
 * environment is set key by key on process.env itself, whose TZ a date reads and whose HOME
 * homedir() reads.
 */
async function enter(options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const env = JSON.stringify(options.env);
  // Calls in another directory or environment wait for the ones running to end.
  while (inside !== undefined && (inside.cwd !== options.cwd || inside.env !== env)) await inside.left;
  if (inside !== undefined) {
    inside.calls++;
    return;
  }
  const [cwd, saved, handlers] = [process.cwd(), { ...process.env }, signalHandlers()];
  process.chdir(options.cwd);
  replaceEnvironment(options.env);
  let leave = () => {};
  const left = new Promise<void>((resolve) => (leave = resolve));
  inside = {
    cwd: options.cwd,
    env,
    calls: 1,
    left,
    leave,
    restore: () => {
      process.chdir(cwd);
      replaceEnvironment(saved);
      // A run keeps its Ctrl-C handlers once its outcome is known, until its process is gone: here, until the calls end.
      for (const [signal, listener] of signalHandlers()) if (!handlers.some(([s, l]) => s === signal && l === listener)) process.off(signal, listener);
    },
  };
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

function signalHandlers(): [NodeJS.Signals, (...args: unknown[]) => void][] {
  return SIGNALS.flatMap((signal) => process.listeners(signal).map((listener) => [signal, listener] as [NodeJS.Signals, (...args: unknown[]) => void]));
}

function replaceEnvironment(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}

function leave(): void {
  if (inside === undefined || --inside.calls > 0) return;
  const { restore, leave: wake } = inside;
  restore();
  inside = undefined;
  wake();
}

function collected(): { stream: Writable; text(): string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** The commands whose calls are told apart by their subcommand. */
const GROUPS = ["session", "queue", "memory", "mcp"] as const;
type InProcessCommand = (typeof GROUPS)[number] | "run" | "submit" | "init";

/**
 * runCli whose first call of each key spawns the CLI, proving the process around it, and whose
 * later calls of that key run in this process. A call keyed undefined, or one that is to crash
 * at a step (it needs the process the crash kills), is always spawned.
 */
export function spawnedFirst(keyOf: (args: string[]) => string | undefined): typeof runCli {
  const spawned = new Set<string>();
  return (args, options) => {
    const key = options.env.FISK_AI_TEST_CRASH_AT === undefined ? keyOf(args) : undefined;
    const inProcess = key !== undefined && spawned.has(key);
    if (key !== undefined) spawned.add(key);
    return (inProcess ? runCliInProcess : runCli)(args, options);
  };
}

/**
 * runCli for a file of many calls of the same commands: keyed by command (a subcommand of
 * `session`, `queue`, `memory` or `mcp`; `run`, `submit`, `init`) among those `commands`.
 * Everything else (a worker) is always spawned; so must a race between processes, and a run
 * whose tool kills its parent, be (runCli).
 */
export function commandsInProcess(commands: readonly InProcessCommand[] = ["session"]): typeof runCli {
  return spawnedFirst((args) => {
    if (!commands.includes(args[0] as InProcessCommand)) return undefined;
    return (GROUPS as readonly string[]).includes(String(args[0])) ? args.slice(0, 2).join(" ") : String(args[0]);
  });
}
