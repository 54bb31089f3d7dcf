// Why a file could not be written or read, in a few words: for the line that refuses it.

export function fileErrorText(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "EISDIR":
      return "it is a directory";
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
      return "permission denied";
    default:
      return (error as Error).message;
  }
}
