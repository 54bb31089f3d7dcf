// The command that resumes a session, printed after a suspend, a fork or an import. It
// must work when pasted as it is, from any directory: the program as it can be run
// here, and the options that find the same store and configuration.
import { realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { packageFile } from "../../package/package-files.js";
import { shellWord } from "../../config/shell-word.js";

const MAIN = packageFile("dist/cli/main.js");

export interface ResumeWhere {
  /** An absolute agent.yaml to name, when a bare resume would not find it (or the store it names). */
  config?: string | undefined;
  /** An absolute state directory to name, when it was given on the command line. */
  stateDir?: string | undefined;
  /** A --store URL, when it was given on the command line. */
  store?: string | undefined;
}

export function resumeCommand(runId: string, where: ResumeWhere, env: NodeJS.ProcessEnv): string {
  return commandLine(["run", "--resume", runId], where, env);
}

/** What sends a session's spans again after an export failed, ready to paste (`ID` when the run never started). */
export function traceAgain(runId: string | undefined, where: ResumeWhere, env: NodeJS.ProcessEnv): string {
  return `'${commandLine(["session", "trace", runId ?? "ID"], where, env)}' sends its spans again`;
}

/** `fisk-ai` and `args`, with the options that find the store and configuration, as it can be pasted. */
export function commandLine(args: readonly string[], where: ResumeWhere, env: NodeJS.ProcessEnv): string {
  const words = [...program(env), ...args];
  if (where.config !== undefined) words.push("--config", where.config);
  if (where.stateDir !== undefined) words.push("--state-dir", where.stateDir);
  if (where.store !== undefined) words.push("--store", where.store);
  return words.map(shellWord).join(" ");
}

/** `fisk-ai` when that name on PATH is this program; else node and this file, by absolute path. */
function program(env: NodeJS.ProcessEnv): string[] {
  const ours = realpathOrUndefined(MAIN);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && ours !== undefined && realpathOrUndefined(join(dir, "fisk-ai")) === ours) return ["fisk-ai"];
  }
  return [process.execPath, MAIN];
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
