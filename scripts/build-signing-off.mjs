// Builds this working tree with signing off into .test-build/signing-off/dist, for
// `npm run bench:signing` to set beside this build (SIGNING_BEFORE): the same code, but
// nothing is signed or verified and no keyring is read. The ratio is then signing's alone,
// where a build of an older commit would also differ by everything merged since.
//   node scripts/build-signing-off.mjs
import { execFileSync } from "node:child_process";
import { cpSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = join(root, ".test-build", "signing-off");

const SIGNATURES = `// This build with signing off (scripts/build-signing-off.mjs): nothing is signed or verified.
import type { ApprovalDecisionPayload, MetaPayload, RecordSignature } from "../runstate/records/records.js";
import type { Keyring } from "./keyring.js";

export interface DecidedCall {
  runId: string;
  name: string;
  input: unknown;
}

export function signDecision(_keyring: Keyring, _call: DecidedCall, _decision: Omit<ApprovalDecisionPayload, "signature">): RecordSignature {
  return { key_id: "off", hmac_sha256: "A".repeat(43) };
}

export function decisionSignatureProblem(_keyring: Keyring, _call: DecidedCall, _decision: ApprovalDecisionPayload): string | undefined {
  return undefined;
}

export function signMeta(_keyring: Keyring, meta: MetaPayload): MetaPayload {
  return meta;
}

export function metaSignatureProblem(_keyring: Keyring, _meta: MetaPayload): string | undefined {
  return undefined;
}
`;

const INSTALLATION_KEYS = `// This build with signing off (scripts/build-signing-off.mjs): no keyring is read.
import type { Store } from "../runstate/store/store.js";
import type { Keyring } from "./keyring.js";

export interface InstallationKeys {
  readonly trusted: Keyring;
  signing(): Keyring;
  readonly shared: boolean;
}

export interface KeyOptions {
  keyring?: Keyring;
  env?: NodeJS.ProcessEnv;
  onKeyCreated?: (path: string) => void;
}

const OFF: Keyring = { current: { id: "off", secret: Buffer.alloc(32) }, keys: new Map([["off", Buffer.alloc(32)]]) };

export function wrapsStore(wrapper: Store, _store: Store): Store {
  return wrapper;
}

export function installationKeys(_given: Store | undefined, _options: KeyOptions = {}): InstallationKeys {
  return { trusted: OFF, shared: false, signing: () => OFF };
}
`;

rmSync(out, { recursive: true, force: true });
cpSync(join(root, "src"), join(out, "src"), { recursive: true });
cpSync(join(root, "tsconfig.json"), join(out, "tsconfig.json"));
writeFileSync(join(out, "src", "trust", "signatures.ts"), SIGNATURES);
writeFileSync(join(out, "src", "trust", "installation-keys.ts"), INSTALLATION_KEYS);
symlinkSync(join(root, "node_modules"), join(out, "node_modules"));
execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(out, "tsconfig.json")], { stdio: "inherit" });
console.log(`built ${join(out, "dist")}`);
