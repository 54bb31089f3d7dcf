// Where fisk-ai keeps its state: the XDG state directory, never the working directory,
// so runs and notes do not leak into repositories.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** `$XDG_STATE_HOME/fisk-ai`, or `~/.local/state/fisk-ai`. */
export function fiskStateHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, ".local", "state");
  return join(base, "fisk-ai");
}

/**
 * The file backend's default directory of runs: `$XDG_STATE_HOME/fisk-ai/runs`, or
 * `~/.local/state/fisk-ai/runs` when XDG_STATE_HOME is unset or not absolute.
 * @param env - The environment to read XDG_STATE_HOME from; default `process.env`.
 * @param home - The home directory; default `os.homedir()`.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(fiskStateHome(env, home), "runs");
}
