/**
 * The errors the client throws. Every one is a {@link LatchError}.
 *
 * @module
 */

// Its declarations name Node's types (see client.ts).
/// <reference types="node" preserve="true" />

/** The base class of every error this package throws. */
export class LatchError extends Error {
  override name = "LatchError";
}

/** The latch binary could not be found (or not executed). */
export class LatchNotFoundError extends LatchError {
  override name = "LatchNotFoundError";

  /**
   * @param bin The binary that was tried.
   * @param from Where its name came from: the `bin` option, `$LATCH_BIN`, or `PATH`.
   */
  constructor(
    readonly bin: string,
    readonly from: "option" | "env" | "path",
    options?: ErrorOptions,
  ) {
    const where = from === "option" ? "the `bin` option" : from === "env" ? "$LATCH_BIN" : "PATH";
    const hint =
      from === "path"
        ? "; install latch, or give its path with the `bin` option or $LATCH_BIN"
        : "";
    super(`latch binary not found: ${JSON.stringify(bin)} (from ${where})${hint}`, options);
  }
}

/** The latch process ended while requests were waiting, or before it answered `initialize`. */
export class LatchDiedError extends LatchError {
  override name = "LatchDiedError";

  /**
   * @param exitCode The exit code, or `null` when a signal ended it.
   * @param signal The signal that ended it, or `null`.
   * @param stderrTail The last lines latch wrote on stderr (at most a few KiB).
   */
  constructor(
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: string,
  ) {
    const how = signal !== null ? `killed by ${signal}` : `exited with code ${String(exitCode)}`;
    const tail = stderrTail.trim();
    super(`latch serve ${how}${tail === "" ? "" : `; stderr:\n${tail}`}`);
  }
}

/** latch answered a request with a JSON-RPC error. */
export class LatchRpcError extends LatchError {
  override name = "LatchRpcError";

  /**
   * @param code The JSON-RPC error code (see {@link ErrorCode}).
   * @param rpcMessage latch's message (for invalid params it names the field).
   * @param method The method of the request that failed.
   * @param data The error's `data`, if any.
   */
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly method: string,
    readonly data?: unknown,
  ) {
    super(`latch ${method} failed (${code}): ${rpcMessage}`);
  }
}

/**
 * latch did not answer in time: `initialize` within `startTimeoutMs`, or an
 * aborted `fire` within `cancelGraceMs` of its `$/cancelRequest`.
 */
export class LatchTimeoutError extends LatchError {
  override name = "LatchTimeoutError";
}

/** A request was made after {@link LatchClient.close} (or it was still waiting when the client closed). */
export class LatchClosedError extends LatchError {
  override name = "LatchClosedError";
}

/** The JSON-RPC error codes `latch serve` answers with. */
export const ErrorCode = {
  /** The line was not JSON. */
  ParseError: -32700,
  /** Not a request or notification, or a line over the size limit. */
  InvalidRequest: -32600,
  /** Unknown method. */
  MethodNotFound: -32601,
  /** Invalid params; the message names the field. */
  InvalidParams: -32602,
  /** latch could not run the request (e.g. an unusable state directory). */
  InternalError: -32603,
  /** A request before `initialize`. */
  NotInitialized: -32002,
  /** A request after `shutdown`. */
  ShuttingDown: -32003,
} as const;
