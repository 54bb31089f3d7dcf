// `session show ID --transcript` on a terminal: the full-screen viewer. It owns the
// terminal from its first screen to its last, and gives it back as it found it however it
// ends: q, Ctrl-C, SIGTERM or SIGHUP, a failure inside the viewer, or one that kills the process.
// The first screen costs what it shows: the journal's ends for the status, the records that
// fill the screen, drawn with ANSI codes before ink (half a second to load) takes over; the
// check of the whole journal starts once ink is up.
import { writeSync } from "node:fs";
import ansiEscapes from "ansi-escapes";
import { tallyRecords } from "../../runstate/views/run-tally.js";
import type { Store } from "../../runstate/store/store.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import { followRecords } from "../text/session-follow.js";
import { statusText } from "../text/session-list.js";
import { TranscriptPager } from "./transcript-pager.js";
import { bodyHeight, plainFrame } from "./viewer-frame.js";

const SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** Shows the session full-screen until the reader leaves; resolves to the exit code. */
export async function viewSession(store: Store, runId: string, options: { follow: boolean }, io: CommandIO): Promise<number> {
  const stdout = io.stdout as NodeJS.WriteStream;
  const summary = await store.summarize(runId, { digest: false });
  const pager = new TranscriptPager(store, runId, summary.lastSeq, { width: stdout.columns, height: bodyHeight(stdout.rows) });
  // The first screen is read before the terminal is taken: a journal that cannot be read is one line on a normal screen.
  await pager.start();
  if (options.follow) await pager.end();
  const follow = options.follow ? followRecords(store, runId, summary.lastSeq + 1) : undefined;
  const title = `${runId} · ${statusText(summary)}`;

  const terminal = takeTerminal(stdout, io.stdin);
  let app: { unmount(): void } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    app?.unmount();
    terminal.restore();
    // Ended by the signal, as if the viewer had never caught it.
    for (const each of SIGNALS) process.removeAllListeners(each);
    process.kill(process.pid, signal);
  };
  // From the first screen on, also while ink loads.
  for (const signal of SIGNALS) process.once(signal, onSignal);
  let checked: Promise<unknown> = Promise.resolve();
  const left: { how: "quit" | "interrupt" } = { how: "quit" };
  try {
    stdout.write(plainFrame(pager, title, options.follow ? "following" : "", { width: stdout.columns, colors: stdout.hasColors?.() === true }));
    const { renderViewer } = await import("./viewer-app.js");
    // The pager reads windows, not the journal in order: the rules of the whole run are checked
    // beside it, and a journal that breaks one ends the viewer as a failed read does (exit 8).
    // Begun once ink has drawn, so that it does not hold up the screen.
    checked = new Promise((resolve) => setImmediate(resolve)).then(() => tallyRecords(runId, store.readRecords(runId)));
    // Handled here as well as on screen: it may fail before the screen is up, or after it is gone.
    checked.catch(() => undefined);
    const endedTitle = async () => `${runId} · ${statusText(await store.summarize(runId))}`;
    const shown = renderViewer({ pager, title, follow, endedTitle, checked, onLeave: (how) => (left.how = how) }, { stdout, stdin: io.stdin });
    app = shown;
    await shown.waitUntilExit();
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    app?.unmount();
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
  // Raw at once: keys typed before ink is up wait for it, unechoed.
  if (stdin.isTTY) stdin.setRawMode(true);
  stdout.write(ansiEscapes.enterAlternativeScreen + ansiEscapes.cursorHide);
  return { restore };
}
