// How the ledger, disk use and sessions read on a terminal: dollars, bytes, and one line
// a session, shared by stats, du, prune and search.

/** US dollars to four places below a dollar (a call costs fractions of a cent), else two. */
export function dollarsText(cost: number): string {
  return `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

/** A cost that leaves out the models with no price, saying which. */
export function costText(cost: number, unpriced: readonly string[], anyPriced: boolean): string {
  if (!anyPriced && unpriced.length > 0) return "no price";
  return unpriced.length === 0 ? dollarsText(cost) : `${dollarsText(cost)} + no price for ${unpriced.join(", ")}`;
}

/** Bytes in the largest unit that keeps them at or above 1 (1024 each). */
export function bytesText(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A line no wider than `width`, cut with an ellipsis. */
export function cut(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** The terminal's width, or no limit when `out` is not a terminal or says it has no width (a pseudo-terminal of 0 columns). */
export function widthOf(out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): number {
  return out.isTTY === true && out.columns !== undefined && out.columns > 0 ? out.columns : Number.POSITIVE_INFINITY;
}

/** Rows as columns padded to their widest cell, the last column left free; one string. */
export function table(rows: readonly string[][], width = Number.POSITIVE_INFINITY): string {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns - 1 }, (_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return `${rows
    .map((row) =>
      cut(
        row
          .map((cell, column) => (column < widths.length ? cell.padEnd(widths[column] as number) : cell))
          .join("  ")
          .trimEnd(),
        width,
      ),
    )
    .join("\n")}\n`;
}
