// Who is at work here, as records name a person: the user and host that ran the command.
import { hostname, userInfo } from "node:os";

/** `user@host` of this process. */
export function thisUser(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = "unknown";
  }
  return `${user}@${hostname()}`;
}
