/**
 * Finding and starting the latch binary. Internal.
 *
 * @module
 */

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { isAbsolute, resolve } from "node:path";
import { LatchError, LatchNotFoundError } from "./errors.js";

/** Where the binary's name came from. */
export type BinarySource = "option" | "env" | "path";

/** Picks the binary: the option, else `$LATCH_BIN`, else `latch` on `PATH`. */
export function chooseBinary(option: string | undefined): { bin: string; from: BinarySource } {
  const fromEnv = process.env["LATCH_BIN"];
  const [bin, from]: [string, BinarySource] =
    option !== undefined && option !== ""
      ? [option, "option"]
      : fromEnv !== undefined && fromEnv !== ""
        ? [fromEnv, "env"]
        : ["latch", "path"];
  // A path with a separator is taken from this process's directory, not from latch's `cwd`.
  return { bin: bin.includes("/") && !isAbsolute(bin) ? resolve(bin) : bin, from };
}

/**
 * Starts `BIN serve` with piped stdio and waits until it runs.
 *
 * @throws {LatchNotFoundError} the binary does not exist or cannot be executed.
 */
export async function spawnServe(
  bin: string,
  from: BinarySource,
  cwd: string | undefined,
  env: NodeJS.ProcessEnv | undefined,
): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(bin, ["serve"], { cwd, env: env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
  await new Promise<void>((ready, fail) => {
    child.once("spawn", ready);
    child.once("error", (error: NodeJS.ErrnoException) => {
      fail(
        error.code === "ENOENT" || error.code === "EACCES"
          ? new LatchNotFoundError(bin, from, { cause: error })
          : new LatchError(`cannot start ${bin}: ${error.message}`, { cause: error }),
      );
    });
  });
  child.on("error", () => {
    // Only a failed kill() can land here now; the process's end is reported by "exit".
  });
  child.stdin.on("error", () => {
    // EPIPE once latch is gone; "exit" reports that.
  });
  return child;
}

/** The last characters a stream wrote, for error messages. */
export class Tail {
  #text = "";

  constructor(readonly limit: number) {}

  /** Appends text, keeping only the last {@link limit} characters. */
  push(text: string): void {
    this.#text = (this.#text + text).slice(-this.limit);
  }

  get text(): string {
    return this.#text;
  }
}
