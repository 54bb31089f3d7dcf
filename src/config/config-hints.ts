// Hints for a config the schema refused: the nearest valid key for a mistyped one, and
// quoting for a YAML number or boolean where a string belongs.
import type { z } from "zod";

/** The keys an object in `schema` takes at `path`, or none when the path leads elsewhere. */
export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case "object":
      if (path.length === 0) return Object.keys(def.shape as object);
      return keysAt((def.shape as Record<string, z.core.$ZodType>)[String(path[0])] ?? schema, path.slice(1));
    case "array":
      return keysAt(def.element as z.core.$ZodType, path.slice(1));
    case "optional":
    case "nullable":
    case "default":
      return keysAt(def.innerType as z.core.$ZodType, path);
    case "pipe":
      return keysAt(def.in as z.core.$ZodType, path);
    case "union":
      return [...new Set((def.options as z.core.$ZodType[]).flatMap((option) => keysAt(option, path)))];
    default:
      return [];
  }
}

/** The candidate closest to `word` (edit distance at most a third of its length, and at least 1 away from nothing). */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, (rows[i - 2]?.[j - 2] as number) + 1);
    }
  }
  return rows[a.length]?.[b.length] as number;
}
