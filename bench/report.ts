// Output of the benchmarks under bench/: number formats, the compact tables and the machine line.
import * as fs from "node:fs";
import { arch, cpus, platform } from "node:os";

export const MB = 1024 * 1024;
export const GB = 1024 * MB;

export const formatMs = (ms: number): string => ms.toFixed(ms < 10 ? 3 : ms < 1000 ? 1 : 0);
export const formatRatio = (ratio: number, digits = 2): string => `${ratio.toFixed(digits)}x`;
/** A ratio against its goal, to three places so a near miss does not print as the goal itself. */
export const goalRatio = (ratio: number, met: boolean): string => `${formatRatio(ratio, 3)} ${met ? "met" : "MISSED"}`;
export const formatCount = (n: number): string => Math.round(n).toLocaleString("en-US");
export const formatMb = (bytes: number): string => (bytes / MB).toFixed(1);
export const formatGb = (bytes: number): string => (bytes / GB).toFixed(1);

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[], notes: readonly string[]): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const format = (row: readonly string[]): string =>
    "  " + row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0))).join("   ");
  console.log(`\n${title}`);
  for (const row of [header, ...rows]) console.log(format(row).trimEnd());
  for (const note of notes) console.log(`  ${note}`);
}

/** The mount holding `dir`, from /proc/mounts (Linux); the statfs magic elsewhere. */
export function describeFileSystem(dir: string): string {
  const path = fs.realpathSync(dir);
  try {
    const mounts = fs
      .readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ").map((field) => field.replace(/\\040/g, " ")))
      .filter(([, point]) => point !== undefined && (point === "/" || path === point || path.startsWith(`${point}/`)));
    const mount = mounts.sort((a, b) => (b[1] ?? "").length - (a[1] ?? "").length)[0];
    if (mount !== undefined) return `${mount[2]} (${mount[0]} mounted at ${mount[1]})`;
  } catch {
    // Not Linux: fall through to the file-system type number.
  }
  return `statfs type 0x${fs.statfsSync(path).type.toString(16)}`;
}

export function freeBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

export function machineLine(dir: string): string {
  const cpuModel = cpus()[0]?.model.trim() ?? "unknown cpu";
  return (
    `machine: node ${process.version} ${platform()}/${arch()}, ${cpus().length} cpus (${cpuModel}), ` +
    `dir ${dir} on ${describeFileSystem(dir)}, ${formatGb(freeBytes(dir))} GB free; warm page cache (nothing dropped)`
  );
}
