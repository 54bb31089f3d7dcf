// What one screen of the viewer holds and how it looks: the pager's rows, each cut into
// runs of one style (its kind's, and the search's marks), and the status bar. Ink draws it
// (viewer-app.ts), and so does plainFrame with ANSI codes alone, for the first screen,
// drawn before ink has loaded.
import type { ScreenRow, TranscriptPager } from "./transcript-pager.js";
import { oneRow } from "./screen-text.js";

/** A run of text's look, in the words of ink's Text. */
export interface TextStyle {
  color?: "green" | "cyan" | "red" | "yellow" | "black";
  backgroundColor?: "yellow";
  dimColor?: boolean;
  bold?: boolean;
  inverse?: boolean;
}

const STYLE: Record<ScreenRow["style"], TextStyle> = {
  user: { bold: true, color: "green" },
  text: {},
  dim: { dimColor: true },
  call: { color: "cyan" },
  error: { color: "red" },
  marker: { color: "yellow" },
  blank: { dimColor: true },
};

/** The search's term where it is on screen: a colour of its own, seen also inside the fold Enter toggles, which is in reverse video. */
const MARK: TextStyle = { color: "black", backgroundColor: "yellow" };

/** Body rows: the screen less the status bar, and less a last row ink keeps free so it redraws in place. */
export function bodyHeight(rows: number): number {
  return Math.max(1, rows - 2);
}

/** A row as runs of one style each: its marks apart from the rest. */
export function rowRuns(row: ScreenRow): { text: string; style: TextStyle }[] {
  const own = { ...STYLE[row.style], ...(row.current ? { inverse: true } : {}) };
  // An empty row is a space, so that it is drawn at all.
  if (row.text === "") return [{ text: " ", style: own }];
  const runs: { text: string; style: TextStyle }[] = [];
  let at = 0;
  for (const [from, to] of row.marks ?? []) {
    if (from > at) runs.push({ text: row.text.slice(at, from), style: own });
    runs.push({ text: row.text.slice(from, to), style: { ...own, ...MARK } });
    at = to;
  }
  if (at < row.text.length) runs.push({ text: row.text.slice(at), style: own });
  return runs;
}

/** The status bar's text: the session, where the reader is, the search, the follow, the keys; or the search being typed. */
export function statusLine(
  pager: TranscriptPager,
  title: string,
  following: string,
  typing: { text: string; backward: boolean } | undefined,
  width: number,
): string {
  const text =
    typing !== undefined
      ? `${typing.backward ? "?" : "/"}${typing.text}`
      : [title, pager.position(), pager.searchStatus(), following, "q quit · / search · Enter opens"].filter((part) => part !== "").join(" · ");
  return oneRow(text, width).padEnd(width);
}

const SGR: Record<string, string> = { green: "32", cyan: "36", red: "31", yellow: "33", black: "30" };

/** `text` in `style` as ANSI codes; without colours, as it is. */
function ansi(text: string, style: TextStyle, colors: boolean): string {
  if (!colors) return text;
  const codes = [
    style.bold === true ? "1" : "",
    style.dimColor === true ? "2" : "",
    style.inverse === true ? "7" : "",
    style.color === undefined ? "" : (SGR[style.color] as string),
    style.backgroundColor === undefined ? "" : `4${(SGR[style.backgroundColor] as string).slice(1)}`,
  ].filter((code) => code !== "");
  return codes.length === 0 ? text : `\u001b[${codes.join(";")}m${text}\u001b[0m`;
}

/**
 * The screen ink will draw first, as ANSI codes from the top left corner, the cursor left
 * there: ink's first frame is written from the cursor, over this one, with the same text.
 */
export function plainFrame(pager: TranscriptPager, title: string, following: string, size: { width: number; colors: boolean }): string {
  const { width, colors } = size;
  const lines = pager.rows().map((row) =>
    rowRuns(row)
      .map((run) => ansi(run.text, run.style, colors))
      .join(""),
  );
  lines.push(ansi(statusLine(pager, title, following, undefined, width), { inverse: true }, colors));
  return `\u001b[H${lines.map((line) => `${line}\u001b[K`).join("\r\n")}\u001b[H`;
}
