// Stops what a process started in process groups of their own (command tools, stdio MCP
// servers) when it dies without stopping them (a kill -9, a crash of ours): else a tool
// cut short by a crash would go on running beside its re-run. One small `sh` per process,
// in its own group, reads the live groups on a pipe; when the pipe closes (we exited,
// however) it sends each SIGTERM, then SIGKILL. A group stopped normally is forgotten
// first, so a reused id is never signalled.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import type { Writable } from "node:stream";

const SCRIPT = `groups=" "
while read -r line; do
  case $line in
    -*) kept=" "; for group in $groups; do [ "$group" = "\${line#-}" ] || kept="$kept$group "; done; groups=$kept ;;
    *) groups="$groups$line " ;;
  esac
done
[ -z "\${groups# }" ] && exit 0
for group in $groups; do kill -TERM -"$group" 2>/dev/null; done
sleep 2
for group in $groups; do kill -KILL -"$group" 2>/dev/null; done`;

let reaper: ChildProcess | undefined;

function started(): ChildProcess {
  if (reaper === undefined) {
    reaper = spawn("/bin/sh", ["-c", SCRIPT], { stdio: ["pipe", "ignore", "ignore"], detached: true });
    // Neither the reaper nor its pipe may keep this process alive.
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
    reaper.on("error", () => undefined);
    reaper.stdin?.on("error", () => undefined);
  }
  return reaper;
}

// The child waits at this gate until the reaper holds its group: it reads one line from
// the extra pipe after its stdio, closes it and only then becomes the program. If we die
// before opening the gate, the pipe closes unread and the child exits without running.
const GATE = (fd: number) => `IFS= read -r _ <&${fd} || exit 125; exec ${fd}<&-; exec "$0" "$@"`;

/**
 * Spawns a process as the leader of a group of its own, which the reaper stops if this
 * process dies. The reaper is running before the child is, and the child runs nothing of
 * its own until the reaper has been handed its group: a kill -9 at any moment after this
 * returns leaves nothing behind (a program that is not there is spawned as is, so its
 * error is the usual ENOENT and nothing runs).
 */
export function spawnWatched(command: string, args: readonly string[], options: SpawnOptions & { stdio: ("pipe" | "ignore")[] }): ChildProcess {
  const watcher = started();
  if (!isRunnable(command, options)) return spawn(command, args, { ...options, detached: true });
  const gate = options.stdio.length;
  const child: ChildProcess = spawn("/bin/sh", ["-c", GATE(gate), command, ...args], { ...options, stdio: [...options.stdio, "pipe"], detached: true });
  const opener = child.stdio[gate] as Writable | null;
  if (child.pid === undefined || opener === null) return child;
  opener.on("error", () => undefined);
  watcher.stdin?.write(`${child.pid}\n`, () => opener.end("\n"));
  return child;
}

/** Whether `command` names an executable file, found as spawn would find it (PATH, cwd). */
function isRunnable(command: string, options: SpawnOptions): boolean {
  const candidates = command.includes("/")
    ? [resolve(String(options.cwd ?? "."), command)]
    : (options.env?.PATH ?? process.env.PATH ?? "")
        .split(delimiter)
        .filter((dir) => dir !== "")
        .map((dir) => resolve(String(options.cwd ?? "."), dir, command));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}

export function forgetGroup(pid: number): void {
  reaper?.stdin?.write(`-${pid}\n`);
}
