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
  follow?: AsyncIterable<JournalRecord> | undefined;
  /** For a follower: the title once the session has ended, with its final status. */
  endedTitle?: (() => Promise<string>) | undefined;
  /** The check of the whole journal, which rejects when a record breaks a rule of the fold. */
  checked?: Promise<unknown> | undefined;
  /** How the viewer was left: q, or Ctrl-C. */
  onLeave(how: "quit" | "interrupt"): void;
}

/** A search being typed in the status bar: `/` forward, `?` backward. */
interface Typing {
  text: string;
  backward: boolean;
}

/** What a key acts on. */
interface KeyTarget {
  /** A ref, not state: the keys of one input change it one after another before the next draw. */
  searching: { current: Typing | undefined };
  /** Queues an operation of the pager, redrawing after it. */
  act(operation: (pager: TranscriptPager) => Promise<void>): void;
  /** Rows of body on the screen. */
  page: number;
  quit(): void;
}

function Viewer({ pager, title, follow, endedTitle, checked, onLeave }: ViewerProps): ReactElement {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [, setFrame] = useState(0);
  const searching = useRef<Typing | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const redraw = () => setFrame((frame) => frame + 1);
  const fail = (error: unknown) => setFailure(error instanceof Error ? error : new Error(String(error)));
  const act = (operation: (pager: TranscriptPager) => Promise<void>) => void pager.run(operation).then(redraw, fail);
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
  useEffect(() => void checked?.catch(fail), [checked]);
  const { following, shownTitle } = useFollow({ pager, title, follow, endedTitle }, redraw, fail);

  useInput((input: string, key: Key) => {
    if (key.ctrl && input === "c") {
      onLeave("interrupt");
      exit();
      return;
    }
    const target: KeyTarget = {
      searching,
      act,
      page: bodyHeight(stdout.rows),
      quit: () => {
        onLeave("quit");
        exit();
      },
    };
    const named = key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.backspace || key.delete;
    if (named || input.length <= 1) press(target, input, key);
    else for (const char of input) press(target, char, {});
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

/** For a follower: takes the records journaled after those read, as they come; says "following" until the session ends, then shows its final title. */
function useFollow(
  { pager, title, follow, endedTitle }: Pick<ViewerProps, "pager" | "title" | "follow" | "endedTitle">,
  redraw: () => void,
  fail: (error: unknown) => void,
): { following: string; shownTitle: string } {
  const [following, setFollowing] = useState(follow === undefined ? "" : "following");
  const [shownTitle, setShownTitle] = useState(title);
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
        fail(error);
      }
    })();
    return () => {
      stopped = true;
    };
  }, [follow]);
  return { following, shownTitle };
}

/** One typed character, or a key without one: keys typed fast come as one input, and are taken in order. */
function press(target: KeyTarget, char: string, key: Partial<Key>): void {
  const typing = target.searching.current;
  if (typing !== undefined) {
    typeSearch(target, typing, char, key);
    return;
  }
  const { act, page } = target;
  if (char === "q") target.quit();
  else if (key.downArrow === true || char === "j" || char === "e") act((p) => p.down(1));
  else if (key.upArrow === true || char === "k" || char === "y") act((p) => p.up(1));
  else if (key.pageDown === true || char === " " || char === "f") act((p) => p.down(Math.max(1, page - 1)));
  else if (key.pageUp === true || char === "b") act((p) => p.up(Math.max(1, page - 1)));
  else if (char === "d") act((p) => p.down(Math.max(1, Math.floor(page / 2))));
  else if (char === "u") act((p) => p.up(Math.max(1, Math.floor(page / 2))));
  else if (key.home === true || char === "g" || char === "<") act((p) => p.home());
  else if (key.end === true || char === "G" || char === ">") act((p) => p.end());
  else if (key.return === true || char === "\r") act((p) => p.toggle());
  else if (char === "/" || char === "?") target.searching.current = { text: "", backward: char === "?" };
  else if (char === "n") act((p) => p.repeatSearch(false));
  else if (char === "N") act((p) => p.repeatSearch(true));
}

/** A key while a search is typed: Escape drops it, Backspace takes a character back, Enter searches. */
function typeSearch(target: KeyTarget, typing: Typing, char: string, key: Partial<Key>): void {
  if (key.escape === true) target.searching.current = undefined;
  else if (key.backspace === true || key.delete === true || char === "\x7f" || char === "\b") typing.text = typing.text.slice(0, -1);
  else if (key.return === true || char === "\r" || char === "\n") {
    target.searching.current = undefined;
    target.act((p) => p.search(typing.text, typing.backward));
  } else if (/^[^\u0000-\u001f\u007f]$/u.test(char)) typing.text += char;
}

/** Draws the viewer with ink on `stdout`, taking keys from `stdin`, until it is left. */
export function renderViewer(props: ViewerProps, streams: { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream }): Instance {
  return render(h(Viewer, props), { ...streams, exitOnCtrlC: false, patchConsole: false });
}
