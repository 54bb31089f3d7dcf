// Ages as a person gives them on the command line and in agent.yaml: `30m`, `12h`, `7d`,
// `2w`. Durations of tools and budgets stop at hours; how old a session is runs to weeks.

const AGE = /^(\d+)(m|h|d|w)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** What an age looks like, for messages that refuse one. */
export const AGE_FORM = "a number and a unit: 30m, 12h, 7d or 2w";

/** An age in milliseconds, or undefined when `text` is not one. */
export function ageMs(text: string): number | undefined {
  const match = AGE.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
