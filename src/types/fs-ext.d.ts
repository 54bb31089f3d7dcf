// The part of fs-ext (kernel flock through a native addon) that fisk-ai uses.
declare module "fs-ext" {
  export type FlockFlag = "sh" | "ex" | "shnb" | "exnb" | "un";
  export function flock(fd: number, flags: FlockFlag, callback: (error: NodeJS.ErrnoException | null) => void): void;
  export function flockSync(fd: number, flags: FlockFlag): void;
}
