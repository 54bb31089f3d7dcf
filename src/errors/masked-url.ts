// A URL's user and password never reach an error, a log line or a listing: every text that
// may hold a store's or a server's URL goes through maskUrlCredentials before it is shown.

/** `scheme://user:password@` (or `scheme://token@`): what comes before the host. */
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@"'<>]+)@/gi;

/** What a message shows the form of a URL with (`expected postgres://USER@HOST…`): no credentials, left as written. */
const PLACEHOLDERS = new Set(["USER", "USER:PASSWORD"]);

/** `text` with the credentials of every URL in it replaced by `***`. */
export function maskUrlCredentials(text: string): string {
  return text.replace(CREDENTIALS, (whole, scheme: string, credentials: string) => (PLACEHOLDERS.has(credentials) ? whole : `${scheme}***@`));
}
