// The viewer's screen as an ink component: the pager's rows, a status bar, and the keys of
// less. Written with createElement, so the CLI builds with tsc alone.
import { Box, render, Text, useApp, useInput, useStdout, type Instance, type Key } from "ink";
import { createElement as h, useEffect, useRef, useState, type ReactElement } from "react";
import type { JournalRecord } from "../../runstate/records/records.js";
import type { TranscriptPager } from "./transcript-pager.js";
import { bodyHeight, rowRuns, statusLine } from "./viewer-frame.js";

/** What the viewer shows and how it ends. */
export interface ViewerProps {
  pager: TranscriptPager;
  /** Left of the status bar: the session and its status. */
  title: string;
  /** For a follower: the records after those read so far, as they are journaled. */
  follow?: AsyncIterable<JournalRecord>;
  /** For a follower: the title once the session has ended, with its final status. */
  endedTitle?: () => Promise<string>;
  /** The check of the whole journal, which rejects when a record breaks a rule of the fold. */
  checked?: Promise<unknown>;
  /** How the viewer was left: q, or Ctrl-C. */
  onLeave(how: "quit" | "interrupt"): void;
}

function Viewer({ pager, title, follow, endedTitle, checked, onLeave }: ViewerProps): ReactElement {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [, setFrame] = useState(0);
  // A ref, not state: the keys of one input change it one after another before the next draw.
  const searching = useRef<{ text: string; backward: boolean } | undefined>(undefined);
  const [following, setFollowing] = useState(follow === undefined ? "" : "following");
  const [shownTitle, setShownTitle] = useState(title);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const redraw = () => setFrame((frame) => frame + 1);
  const act = (operation: (pager: TranscriptPager) => Promise<void>) => {
    pager.run(operation).then(redraw, (error: unknown) => setFailure(error instanceof Error ? error : new Error(String(error))));
  };
  useEffect(() => {
    const resized = () => {
      pager.resize({ width: stdout.columns, height: bodyHeight(stdout.rows) });
      redraw();
    };
    stdout.on("resize", resized);
    return () => void stdout.off("resize", resized);
  }, [stdout]);

  useEffect(() => {
    pager.onChange = redraw;
  }, [pager]);

  useEffect(() => {
    checked?.catch((error: unknown) => setFailure(error instanceof Error ? error : new Error(String(error))));
  }, [checked]);

  useEffect(() => {
    if (follow === undefined) return;
    let stopped = false;
    void (async () => {
      try {
        for await (const record of follow) {
          if (stopped) return;
          await pager.run(async (p) => p.append([record]));
          redraw();
        }
        // The status the session began following with (running) is past: the bar ends on the final one.
        if (endedTitle !== undefined) setShownTitle(await endedTitle());
        setFollowing("");
      } catch (error) {
        setFailure(error instanceof Error ? error : new Error(String(error)));
      }
    })();
    return () => {
      stopped = true;
    };
  }, [follow]);

  /** One typed character, or a key without one: keys typed fast come as one input, and are taken in order. */
  const press = (char: string, key: Partial<Key>) => {
    const typing = searching.current;
    if (typing !== undefined) {
      if (key.escape === true) searching.current = undefined;
      else if (key.backspace === true || key.delete === true || char === "\x7f" || char === "\b") typing.text = typing.text.slice(0, -1);
      else if (key.return === true || char === "\r" || char === "\n") {
        searching.current = undefined;
        act((p) => p.search(typing.text, typing.backward));
      } else if (/^[^\u0000-\u001f\u007f]$/u.test(char)) typing.text += char;
      return;
    }
    const page = bodyHeight(stdout.rows);
    if (char === "q") {
      onLeave("quit");
      exit();
    } else if (key.downArrow === true || char === "j" || char === "e") act((p) => p.down(1));
    else if (key.upArrow === true || char === "k" || char === "y") act((p) => p.up(1));
    else if (key.pageDown === true || char === " " || char === "f") act((p) => p.down(Math.max(1, page - 1)));
    else if (key.pageUp === true || char === "b") act((p) => p.up(Math.max(1, page - 1)));
    else if (char === "d") act((p) => p.down(Math.max(1, Math.floor(page / 2))));
    else if (char === "u") act((p) => p.up(Math.max(1, Math.floor(page / 2))));
    else if (key.home === true || char === "g" || char === "<") act((p) => p.home());
    else if (key.end === true || char === "G" || char === ">") act((p) => p.end());
    else if (key.return === true || char === "\r") act((p) => p.toggle());
    else if (char === "/" || char === "?") searching.current = { text: "", backward: char === "?" };
    else if (char === "n") act((p) => p.repeatSearch(false));
    else if (char === "N") act((p) => p.repeatSearch(true));
  };

  useInput((input: string, key: Key) => {
    if (key.ctrl && input === "c") {
      onLeave("interrupt");
      exit();
      return;
    }
    const named = key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.backspace || key.delete;
    if (named || input.length <= 1) press(input, key);
    else for (const char of input) press(char, {});
    redraw();
  });

  // A failed read (a journal that turns out corrupt further on) ends the viewer as a crash would.
  if (failure !== undefined) throw failure;
  const width = stdout.columns;
  return h(
    Box,
    { flexDirection: "column", width },
    ...pager
      .rows()
      .map((row, index) => h(Text, { key: index, wrap: "truncate-end" }, ...rowRuns(row).map((run, at) => h(Text, { key: at, ...run.style }, run.text)))),
    h(Text, { key: "status", inverse: true, wrap: "truncate-end" }, statusLine(pager, shownTitle, following, searching.current, width)),
  );
}

/** Draws the viewer with ink on `stdout`, taking keys from `stdin`, until it is left. */
export function renderViewer(props: ViewerProps, streams: { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream }): Instance {
  return render(h(Viewer, props), { ...streams, exitOnCtrlC: false, patchConsole: false });
}
