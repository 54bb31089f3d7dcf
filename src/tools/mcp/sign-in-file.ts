// One MCP server's sign-in, kept in a file of its own that only its owner can read: the
// client the authorization server registered, the tokens it issued, and the PKCE verifier
// of a sign-in under way. Never journaled; `fisk-ai mcp logout` removes the file.
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";

/** What a sign-in file holds; every field is optional, as a sign-in fills it in step by step. */
export interface SignInState {
  /** The server's URL when this was saved: a sign-in to another URL is not reused. */
  url?: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
  discovery?: OAuthDiscoveryState;
}

/** A change to a SignInState: a field given as undefined is removed. */
export type SignInChange = { [K in keyof SignInState]?: SignInState[K] | undefined };

/** The sign-in file of the server `name` in `dir` (a directory only its owner may enter). */
export class SignInFile {
  readonly path: string;

  constructor(
    private readonly dir: string,
    name: string,
  ) {
    this.path = join(dir, `${name}.json`);
  }

  read(): SignInState {
    try {
      return JSON.parse(readFileSync(this.path, "utf8")) as SignInState;
    } catch {
      // None yet, or unreadable: a fresh sign-in replaces it.
      return {};
    }
  }

  /**
   * Merges `change` in; written whole to a new 0600 file and renamed over, so a crash leaves
   * the old one or the new. The new file's name is random and it is created exclusively
   * (O_EXCL, which never follows a symlink): one planted at a name that could be guessed is
   * never written through. A directory made earlier with wider rights is tightened to 0700.
   */
  update(change: SignInChange): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const next = { ...this.read(), ...change };
    const temporary = `${this.path}.${randomBytes(8).toString("hex")}.tmp`;
    const fd = openSync(temporary, "wx", 0o600);
    try {
      writeFileSync(fd, `${JSON.stringify(next)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.path);
  }

  /** True when there was a sign-in to remove. */
  remove(): boolean {
    try {
      rmSync(this.path);
      return true;
    } catch {
      return false;
    }
  }
}
