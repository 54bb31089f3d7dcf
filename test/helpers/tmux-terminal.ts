// A real pseudo-terminal for the tests of what a person sees and types: a bash shell in a
// tmux window of its own (on a tmux server of the test's own socket), driven with
// keystrokes and read back with capture-pane.
import { execFileSync, spawnSync } from "node:child_process";
import { programPath } from "./programs.js";
import { eventually } from "./eventually.js";

export class TmuxTerminal {
  constructor(
    /** The tmux server's socket name (-L): one per test file, killed with killTmuxServer. */
    readonly socket: string,
    readonly name: string,
    /** The shell's whole environment; CI and FORCE_COLOR are never passed (ink draws nothing interactive under CI). */
    env: Record<string, string>,
    size: { width: number; height: number },
  ) {
    const variables = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    this.tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(size.width),
      "-y",
      String(size.height),
      ...variables,
      "env -u CI -u FORCE_COLOR bash --norc --noprofile",
    );
  }

  protected tmux(...args: string[]): string {
    return execFileSync(programPath("tmux") as string, ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  type(...keys: string[]): void {
    this.tmux("send-keys", "-t", this.name, ...keys);
  }

  /** Types a line into the shell, literally. */
  line(text: string): void {
    this.tmux("send-keys", "-t", this.name, "-l", text);
    this.tmux("send-keys", "-t", this.name, "Enter");
  }

  screen(): string {
    return this.tmux("capture-pane", "-p", "-t", this.name);
  }

  /** The screen with its colours and attributes as SGR codes (capture-pane -e). */
  styledScreen(): string {
    return this.tmux("capture-pane", "-p", "-e", "-t", this.name);
  }

  flag(name: "alternate_on" | "cursor_flag"): string {
    return this.tmux("display-message", "-p", "-t", this.name, `#{${name}}`).trim();
  }

  /** The screen once `check` holds of it; a timeout's message shows the screen as last seen. */
  async waitFor(check: (screen: string) => boolean, what: string): Promise<string> {
    let screen = "";
    await eventually(() => check((screen = this.screen())), what, { timeoutMs: 15_000 }).catch((error: Error) => {
      throw new Error(`${error.message}; the screen:\n${screen}`);
    });
    return screen;
  }

  /** The pid of what the shell runs in the foreground. */
  foreground(): number {
    const shell = this.tmux("display-message", "-p", "-t", this.name, "#{pane_pid}").trim();
    const child = spawnSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).stdout.trim().split("\n")[0];
    return Number(child);
  }

  close(): void {
    this.tmux("kill-session", "-t", this.name);
  }
}
