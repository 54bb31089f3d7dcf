// Statistics, timing and round interleaving shared by the benchmarks under bench/.
import { performance } from "node:perf_hooks";

/** Linear interpolation between closest ranks, so the median of an even count is the mean of the middle two. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const position = ((sorted.length - 1) * p) / 100;
  const below = sorted[Math.floor(position)] as number;
  const above = sorted[Math.ceil(position)] as number;
  return below + (above - below) * (position - Math.floor(position));
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export async function timed<T>(operation: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await operation();
  return { ms: performance.now() - started, value };
}

/** The median of each figure over the rounds. */
export function medianOf<T, K extends keyof T>(rounds: readonly T[], keys: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of keys) out[key] = median(rounds.map((round) => Number(round[key])));
  return out;
}

/**
 * Runs each side once per round, in reverse order every other round (AB BA AB ...),
 * after `warmupRounds` whose results are dropped (JIT, file-system metadata).
 */
export async function interleave<K extends string, R>(sides: Record<K, () => Promise<R>>, rounds: number, warmupRounds: number): Promise<Record<K, R[]>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as R[]])) as Record<K, R[]>;
  for (let round = 0; round < warmupRounds + rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const result = await sides[name]();
      if (round >= warmupRounds) results[name].push(result);
    }
  }
  return results;
}
