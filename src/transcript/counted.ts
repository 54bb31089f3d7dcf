// A count with its noun, singular for one: "1 tool", "2 tools".

/** `count` and the noun, in the plural unless count is 1 (the plural given, or the noun and "s"). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
