// Stops what a process started in process groups of their own (command tools, stdio MCP
// servers) when it dies without stopping them (a kill -9, a crash of ours): else a tool
// cut short by a crash would go on running beside its re-run. One small `sh` per process,
// in its own group, reads the live groups on a pipe; when the pipe closes (we exited,
// however) it sends each SIGTERM, then SIGKILL. A group stopped normally is forgotten
// first, so a reused id is never signalled.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

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

/**
 * Spawns a process as the leader of a group of its own, which the reaper stops if this
 * process dies. The reaper is running before the child is, and the group is handed to it the
 * moment spawn returns, not on the "spawn" event: a kill -9 in between would leave it behind.
 */
export function spawnWatched(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const watcher = started();
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) watcher.stdin?.write(`${child.pid}\n`);
  return child;
}

export function forgetGroup(pid: number): void {
  reaper?.stdin?.write(`-${pid}\n`);
}
