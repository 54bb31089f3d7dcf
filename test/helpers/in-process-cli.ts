// The CLI's command line run inside the test's own process: the same runCommandLine and
// reportFailure that the shipped process runs, without the node start and module loads a
// spawned command pays (a third of a second of CPU or more each). For a file of many calls;
// the file keeps its first call spawned, which proves the process around them, and spawns
// whatever needs a process: a crash, a kill, a race.
import { Readable, Writable } from "node:stream";
import { CLI, runCli, type CliResult } from "./cli-harness.js";

/**
 * The built CLI's own modules, which the spawned one runs (what it prints names that program),
 * loaded before the test that imports this runs, with the record schemas the CLI requires at
 * first use. Node 20's require() of an ES module that an import still has in flight fails
 * (ERR_VM_MODULE_LINK_FAILURE): loaded here first, no call's import of a provider (which
 * imports the schemas) meets another call's, or the test's own, require of them or of zod.
 */
const [{ runCommandLine }, { reportFailure }]: [typeof import("../../src/cli/program.js"), typeof import("../../src/cli/cli-errors.js"), unknown] =
  await Promise.all([
    import(new URL("./program.js", `file://${CLI}`).href),
    import(new URL("./cli-errors.js", `file://${CLI}`).href),
    import(new URL("../runstate/records/record-schemas.js", `file://${CLI}`).href),
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
export async function runCliInProcess(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | undefined }): Promise<CliResult> {
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

/** The commands a file may run in this process. */
type InProcessCommand = "session" | "queue" | "memory" | "mcp" | "run" | "submit" | "init" | "store" | "replay";

/**
 * runCli whose first call that may run in this process spawns the CLI, proving the process
 * around the calls, and whose later such calls run in this process. A call that may not, or one
 * that is to crash at a step (it needs the process the crash kills), is always spawned.
 */
export function spawnedFirst(mayRunHere: (args: string[]) => boolean): typeof runCli {
  let spawnedOne = false;
  return (args, options) => {
    if (options.env.FISK_AI_TEST_CRASH_AT !== undefined || !mayRunHere(args)) return runCli(args, options);
    const here = spawnedOne;
    spawnedOne = true;
    return (here ? runCliInProcess : runCli)(args, options);
  };
}

/**
 * runCli for a file of many calls of these `commands`: the first of them spawns the CLI, proving
 * the process around the file's calls, and the rest run in this process. Every command but the
 * worker's and mcp's also runs in a process of its own in test/cli-pipes.test.ts, and
 * test/in-process-cli.test.ts holds these calls to the spawned CLI. Everything else (a worker)
 * is always spawned; so must a race between processes, and a run whose tool kills its parent,
 * be (runCli).
 */
export function commandsInProcess(commands: readonly InProcessCommand[] = ["session"]): typeof runCli {
  return spawnedFirst((args) => commands.includes(args[0] as InProcessCommand));
}
