// A URL's user and password never reach an error, a log line or a listing: every text that
// may hold a store's or a server's URL goes through maskUrlCredentials before it is shown.

/**
 * `scheme://user:password@` (or `scheme://token@`): what comes before the host, up to its last
 * `@`, since a password may hold one. A user alone is masked too: for some servers it is the token.
 */
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>]*)@/gi;

/** What a message shows the form of a URL with (`expected postgres://USER@HOST…`): no credentials, left as written. */
const PLACEHOLDERS = new Set(["USER", "USER:PASSWORD"]);

/** Query parameters that carry a secret in the URLs of common servers. */
const SECRET_PARAMS = /^(pass|password|passwd|pwd|token|secret|key|creds|credentials|sslpassword)$/i;

/** `text` with the credentials and secret query parameters of every URL in it replaced by `***`. */
export function maskUrlCredentials(text: string): string {
  return text
    .replace(CREDENTIALS, (whole, scheme: string, credentials: string) => (PLACEHOLDERS.has(credentials) ? whole : `${scheme}***@`))
    .replace(/([?&])([^=&#\s"']+)=([^&#\s"']*)/g, (match, sep: string, name: string) => (SECRET_PARAMS.test(name) ? `${sep}${name}=***` : match));
}

/** Whether `url` carries a password (`user:password@`) or a secret query parameter: what must never be journaled. */
export function urlHoldsSecret(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.password !== "" || [...parsed.searchParams.keys()].some((name) => SECRET_PARAMS.test(name));
}
