// Journal text made safe and laid out for a terminal: control characters shown, not sent
// (a tool result holding an escape sequence must not move the cursor or retitle the
// window), tabs expanded, and lines wrapped to the screen's width in columns.
import { createRequire } from "node:module";
import type StringWidth from "./string-width.js";

const TAB = "    ";
// C0 and C1 controls, DEL: everything a terminal may act on. Newline is split on first.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/**
 * Text whose every character is one column: printable ASCII, Latin-1 and the Latin and
 * spacing-modifier blocks, dashes, quotes, bullets and ellipses, arrows, box drawing.
 * Measured without string-width, whose first use (a segmenter and emoji tables) would delay
 * the first screen (npm run bench:show); test/viewer-first-screen.test.ts checks each against string-width.
 */
export const ONE_COLUMN = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u257f]*$/;

let measure: typeof StringWidth | undefined;
/** string-width, loaded on the first text that needs it; synchronously, as wrapping is a plain call. */
function stringWidth(text: string): number {
  measure ??= (createRequire(import.meta.url)("./string-width.js") as { default: typeof StringWidth }).default;
  return measure(text);
}

/** `text` with each control character shown as its caret form (ESC as ^[) or a code, tabs as spaces. */
export function visibleText(text: string): string {
  return text.replace(/\t/g, TAB).replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x20 ? `^${String.fromCharCode(code + 0x40)}` : code === 0x7f ? "^?" : `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/** `text`'s lines made visible and wrapped to `width` columns, each continuation indented by `indent`. */
export function wrapText(text: string, width: number, indent = ""): string[] {
  const rows: string[] = [];
  for (const line of visibleText(text).split("\n")) {
    let rest = line;
    let prefix = "";
    for (;;) {
      const room = Math.max(1, width - prefix.length);
      const cut = fitting(rest, room);
      rows.push(prefix + rest.slice(0, cut));
      rest = rest.slice(cut);
      prefix = indent;
      if (rest === "") break;
    }
  }
  return rows;
}

/** How many UTF-16 units of `text` fit in `columns`: at least one character, so wrapping always advances. */
function fitting(text: string, columns: number): number {
  if (ONE_COLUMN.test(text)) return Math.min(text.length, columns);
  let used = 0;
  let units = 0;
  for (const char of text) {
    const width = stringWidth(char);
    if (used + width > columns && units > 0) break;
    used += width;
    units += char.length;
  }
  return units;
}

/** `text` cut to one row of `width` columns, with an ellipsis where it was cut. */
export function oneRow(text: string, width: number): string {
  const line = visibleText(text.split("\n", 1)[0] ?? "");
  const cut = fitting(line, Math.max(1, width - 1));
  return cut < line.length ? `${line.slice(0, cut)}…` : line;
}
