// The CLI's command line run inside the test's own process: the same runCommandLine and
// reportFailure that the shipped process runs, without the node start and module loads a
// spawned command pays (a third of a second of CPU each). For a check that asks many
// sessions the same question; the test keeps one spawned run of each command, which
// proves the process around it.
import { Readable, Writable } from "node:stream";
import { reportFailure } from "../../src/cli/cli-errors.js";
import { runCommandLine } from "../../src/cli/program.js";
import type { CliResult } from "./cli-harness.js";

interface Inside {
  cwd: string;
  env: NodeJS.ProcessEnv;
  calls: number;
  restore: () => void;
}

let inside: Inside | undefined;

/** Runs `fisk-ai ...args` in this process with `cwd` and `env` as its own; calls that overlap must share both. */
export async function runCliInProcess(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  enter(options);
  try {
    const stdout = collected();
    const stderr = collected();
    const stdin = Readable.from([]) as unknown as NodeJS.ReadStream;
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

/** The working directory and environment the command sees (homedir() reads HOME from process.env), kept while any call runs. */
function enter(options: { cwd: string; env: NodeJS.ProcessEnv }): void {
  if (inside !== undefined) {
    if (inside.cwd !== options.cwd || inside.env !== options.env) throw new Error("in-process CLI calls that overlap must share one cwd and one env");
    inside.calls++;
    return;
  }
  const [cwd, env] = [process.cwd(), process.env];
  process.chdir(options.cwd);
  process.env = options.env;
  inside = {
    ...options,
    calls: 1,
    restore: () => {
      process.chdir(cwd);
      process.env = env;
    },
  };
}

function leave(): void {
  if (inside === undefined || --inside.calls > 0) return;
  inside.restore();
  inside = undefined;
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
