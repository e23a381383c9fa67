/**
 * Finding and starting the latch binary. Internal.
 *
 * @module
 */

// Its declarations name Node's types (see client.ts).
/// <reference types="node" preserve="true" />

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { LatchError, LatchNotFoundError } from "./errors.js";

/** Where the binary's name came from. */
export type BinarySource = "option" | "env" | "path";

/**
 * Picks the binary: the option, else `$LATCH_BIN`, else `latch` on `PATH`.
 * `$LATCH_BIN` is read from `env`, latch's environment, when it is given
 * (as `spawn` then searches that environment's `PATH`), else from this
 * process's.
 */
export function chooseBinary(
  option: string | undefined,
  env: NodeJS.ProcessEnv | undefined,
): { bin: string; from: BinarySource } {
  const fromEnv = (env ?? process.env)["LATCH_BIN"];
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
 * latch runs detached, in a session and process group of its own: a
 * terminal's Ctrl-C (SIGINT to the foreground process group) then reaches
 * only the harness, which decides what to cancel. latch still exits with
 * the harness, at the end of its input.
 *
 * @throws {LatchNotFoundError} the binary does not exist or cannot be executed.
 * @throws {LatchError} `cwd` is not a directory latch can run in, or the binary could not be started otherwise.
 */
export async function spawnServe(
  bin: string,
  from: BinarySource,
  cwd: string | undefined,
  env: NodeJS.ProcessEnv | undefined,
): Promise<ChildProcessWithoutNullStreams> {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(bin, ["serve"], {
      cwd,
      env: env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    // Some failures (ENOTDIR: `cwd` is a file) are thrown rather than emitted.
    if (typeof (error as NodeJS.ErrnoException).errno !== "number") throw error;
    throw await startError(error as NodeJS.ErrnoException, bin, from, cwd);
  }
  await new Promise<void>((ready, fail) => {
    const failed = (error: NodeJS.ErrnoException): void => {
      void startError(error, bin, from, cwd).then(fail);
    };
    child.once("error", failed);
    // Started: a later error (a failed kill()) is not a start's.
    child.once("spawn", () => {
      child.off("error", failed);
      ready();
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

/**
 * The error `start` throws when `BIN serve` could not be started. The
 * child enters `cwd` before it runs the binary, and a missing directory
 * gives the same codes (ENOENT, EACCES) as a missing binary: `cwd` is
 * looked at first.
 */
async function startError(
  error: NodeJS.ErrnoException,
  bin: string,
  from: BinarySource,
  cwd: string | undefined,
): Promise<LatchError> {
  const problem = cwd === undefined ? undefined : await unusableDirectory(cwd);
  if (problem !== undefined) {
    const where = `latch's working directory ${JSON.stringify(cwd)} (the \`cwd\` option)`;
    return new LatchError(`cannot start ${bin}: ${where} ${problem}`, { cause: error });
  }
  return error.code === "ENOENT" || error.code === "EACCES"
    ? new LatchNotFoundError(bin, from, { cause: error })
    : new LatchError(`cannot start ${bin}: ${error.message}`, { cause: error });
}

/**
 * Why `dir` cannot be a process's working directory (`"does not exist"`,
 * …), or `undefined` when it can.
 */
async function unusableDirectory(dir: string): Promise<string | undefined> {
  try {
    if (!(await stat(dir)).isDirectory()) return "is not a directory";
    await access(dir, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? "does not exist"
      : code === "ENOTDIR"
        ? "does not exist (a part of its path is not a directory)"
        : code === "EACCES"
          ? "cannot be entered (permission denied)"
          : `cannot be used (${(error as Error).message})`;
  }
}

/**
 * Makes the process and its pipes keep this one alive (`ref`), or not: a
 * client waiting for nothing must not keep Node from exiting.
 */
export function holdOpen(child: ChildProcessWithoutNullStreams, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as Refable[]) {
    if (hold) handle.ref?.();
    else handle.unref?.();
  }
}

interface Refable {
  ref?(): void;
  unref?(): void;
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
