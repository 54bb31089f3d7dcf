// A command timed as a person at a terminal sees it: started as a fresh process in a tmux
// pane (a real pseudo-terminal) and timed from launch to the first screen drawn, or to its
// exit, polling the pane. Its peak RSS comes from report-peak-rss.js as it exits, and for a
// screen also as it stood when the screen appeared (VmHWM in /proc).
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const PEAK_RSS = new URL("../test/helpers/report-peak-rss.js", import.meta.url).pathname;
const WIDTH = 120;
const HEIGHT = 40;
const TIMEOUT_MS = 120_000;

/** One launch: how long until it was seen, and its memory. */
export interface Launch {
  ms: number;
  /** Peak RSS in KiB when the screen was first seen; undefined for a command timed to its exit. */
  screenRssKb: number | undefined;
  /** Peak RSS in KiB over the whole process. */
  exitRssKb: number;
}

/**
 * A tmux server of its own (its own socket), for commands that run without CI in their
 * environment (ink draws nothing interactive under CI); a session that only sleeps keeps it up.
 */
export class TerminalLauncher {
  readonly #socket = `fisk-bench-${process.pid}`;
  readonly #dir: string;
  readonly #env: NodeJS.ProcessEnv;
  #count = 0;

  /** `dir` holds the peak-RSS files. */
  constructor(dir: string) {
    this.#dir = dir;
    const { CI: _ci, FORCE_COLOR: _color, TMUX: _tmux, ...env } = process.env;
    this.#env = env;
    this.#tmux("new-session", "-d", "-s", "keep", "-x", String(WIDTH), "-y", String(HEIGHT), "sleep 100000");
  }

  /**
   * Runs `node args...` in a new pane; with `screen`, times it to the first pane that
   * matches, then types `quit` and waits for it to end; else times it to its exit.
   */
  async launch(args: readonly string[], screen?: { shows: RegExp; quit: string }): Promise<Launch> {
    const name = `run${this.#count++}`;
    const rssFile = join(this.#dir, `${name}.rss`);
    const started = performance.now();
    this.#tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(WIDTH),
      "-y",
      String(HEIGHT),
      "-e",
      `FISK_AI_TEST_RSS_FILE=${rssFile}`,
      process.execPath,
      "--import",
      PEAK_RSS,
      ...args,
    );
    let ms = 0;
    let screenRssKb: number | undefined;
    if (screen !== undefined) {
      const pid = this.#tmux("display-message", "-p", "-t", name, "#{pane_pid}").trim();
      await this.#poll(() => screen.shows.test(this.#tmux("capture-pane", "-p", "-t", name)), `${args.join(" ")} to show ${screen.shows}`);
      ms = performance.now() - started;
      screenRssKb = vmHwmKb(pid);
      this.#tmux("send-keys", "-t", name, screen.quit);
    }
    await this.#poll(() => !this.#alive(name), `${args.join(" ")} to end`);
    if (screen === undefined) ms = performance.now() - started;
    const exitRssKb = Number(readFileSync(rssFile, "utf8"));
    rmSync(rssFile);
    return { ms, screenRssKb, exitRssKb };
  }

  close(): void {
    this.#tmux("kill-server");
  }

  #alive(name: string): boolean {
    try {
      this.#tmux("has-session", "-t", name);
      return true;
    } catch {
      return false;
    }
  }

  async #poll(done: () => boolean, what: string): Promise<void> {
    const deadline = performance.now() + TIMEOUT_MS;
    while (!done()) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  #tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.#socket, ...args], { encoding: "utf8", env: this.#env, stdio: ["ignore", "pipe", "pipe"] });
  }
}

function vmHwmKb(pid: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((each) => each.startsWith("VmHWM:"));
  return Number(line?.replace(/\D+/g, "") ?? Number.NaN);
}
