// `session show ID --transcript` on a terminal: the full-screen viewer. It owns the
// terminal from its first screen to its last, and gives it back as it found it however it
// ends: q, Ctrl-C, SIGTERM or SIGHUP, a failure inside the viewer, or one that kills the process.
import { writeSync } from "node:fs";
import ansiEscapes from "ansi-escapes";
import { render } from "ink";
import { createElement as h } from "react";
import { tallyRecords } from "../../runstate/run-tally.js";
import type { Store } from "../../runstate/store.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../run-command.js";
import { followRecords } from "../session-follow.js";
import { statusText } from "../session-list.js";
import { TranscriptPager } from "./transcript-pager.js";
import { bodyHeight, Viewer } from "./viewer-app.js";

const SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** Shows the session full-screen until the reader leaves; resolves to the exit code. */
export async function viewSession(store: Store, runId: string, options: { follow: boolean }, io: CommandIO): Promise<number> {
  const stdout = io.stdout as NodeJS.WriteStream;
  const summary = await store.summarize(runId);
  const pager = new TranscriptPager(store, runId, summary.lastSeq, { width: stdout.columns, height: bodyHeight(stdout.rows) });
  // The first screen is read before the terminal is taken: a journal that cannot be read is one line on a normal screen.
  await pager.start();
  if (options.follow) await pager.end();
  const follow = options.follow ? followRecords(store, runId, summary.lastSeq + 1) : undefined;

  // The pager reads windows, not the journal in order: the rules of the whole run are checked
  // beside it, and a journal that breaks one ends the viewer as a failed read does (exit 8).
  const checked = tallyRecords(runId, store.readRecords(runId));
  // Handled here as well as on screen: it may fail before the screen is up, or after it is gone.
  checked.catch(() => undefined);
  const terminal = takeTerminal(stdout, io.stdin);
  const left: { how: "quit" | "interrupt" } = { how: "quit" };
  const app = render(h(Viewer, { pager, title: `${runId} · ${statusText(summary)}`, follow, endedTitle: async () => `${runId} · ${statusText(await store.summarize(runId))}`, checked, onLeave: (how) => (left.how = how) }), {
    stdout,
    stdin: io.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const onSignal = (signal: NodeJS.Signals) => {
    app.unmount();
    terminal.restore();
    // Ended by the signal, as if the viewer had never caught it.
    for (const each of SIGNALS) process.removeAllListeners(each);
    process.kill(process.pid, signal);
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
  try {
    await app.waitUntilExit();
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    app.unmount();
    terminal.restore();
  }
  // Left before the check ended: a corrupt journal still says so, with its exit code.
  await checked;
  return left.how === "interrupt" ? EXIT.interrupted : EXIT.completed;
}

/**
 * Switches to the alternate screen with the cursor hidden, and returns what switches back:
 * run once however many ways out call it, and also when the process exits without calling it.
 */
function takeTerminal(stdout: NodeJS.WriteStream, stdin: NodeJS.ReadStream): { restore(): void } {
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.off("exit", restore);
    if (stdin.isTTY) stdin.setRawMode(false);
    // Synchronous: on the way out of a dying process nothing asynchronous is written.
    const fd = (stdout as NodeJS.WriteStream & { fd?: number }).fd ?? 1;
    writeSync(fd, ansiEscapes.cursorShow + ansiEscapes.exitAlternativeScreen);
  };
  process.on("exit", restore);
  stdout.write(ansiEscapes.enterAlternativeScreen + ansiEscapes.cursorHide);
  return { restore };
}
