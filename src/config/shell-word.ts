// A word of a command line printed for a person to paste: as it is when the shell reads it
// so, else single-quoted.
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
