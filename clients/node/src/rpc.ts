/**
 * JSON-RPC 2.0 over a pair of streams, one JSON message per line (the
 * framing of `latch serve`). Internal: {@link LatchClient} is the public face.
 *
 * @module
 */

// Its declarations name Node's types (see client.ts).
/// <reference types="node" preserve="true" />

import type { Readable, Writable } from "node:stream";
import { LatchError, LatchRpcError } from "./errors.js";

/** A request id, as this client makes them. */
export type RequestId = number;

/** What the connection hands to its owner. */
export interface ConnectionHandlers {
  /** A notification from the server. */
  onNotification(method: string, params: unknown): void;
  /** A line that is not a response to a pending request nor a notification. */
  onProtocolError(error: Error): void;
  /** The number of requests waiting for an answer changed. */
  onPendingChange?(count: number): void;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A request on its way: its id (for `$/cancelRequest`) and its answer. */
export interface SentRequest<T> {
  id: RequestId;
  result: Promise<T>;
}

/** The client side of a line-framed JSON-RPC connection. */
export class Connection {
  readonly #out: Writable;
  readonly #handlers: ConnectionHandlers;
  readonly #pending = new Map<RequestId, Pending>();
  /** Requests given up on ({@link abandon}) whose answer has not come yet: it is dropped. */
  readonly #abandoned = new Set<RequestId>();
  #nextId = 1;
  /** The pieces of a line still without its newline, joined once it comes. */
  #partial: string[] = [];
  #failure: Error | undefined;

  constructor(input: Readable, output: Writable, handlers: ConnectionHandlers) {
    this.#out = output;
    this.#handlers = handlers;
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => this.#receive(chunk));
  }

  /** How many requests wait for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Sends a request; the answer's `result`, or a {@link LatchRpcError}.
   * Params JSON cannot carry (a BigInt, a cycle) reject with the
   * `TypeError` of `JSON.stringify`, and nothing is sent.
   */
  request<T>(method: string, params?: unknown): SentRequest<T> {
    const id = this.#nextId++;
    const result = new Promise<T>((resolve, reject) => {
      if (this.#failure !== undefined) {
        reject(this.#failure);
        return;
      }
      // Encoded first: if it throws, no request is left waiting.
      const line = encode(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
      this.#pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject });
      this.#changed();
      this.#out.write(line);
    });
    return { id, result };
  }

  /**
   * Rejects a request still waiting with `error`, and drops its answer
   * when it comes. Does nothing if it was answered already.
   */
  abandon(id: RequestId, error: Error): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    this.#abandoned.add(id);
    this.#changed();
    pending.reject(error);
  }

  /** Sends a notification (no answer). Does nothing once the connection failed. */
  notify(method: string, params?: unknown): void {
    if (this.#failure !== undefined) return;
    this.#out.write(encode(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }));
  }

  /** Rejects every pending request, and every later one, with `error`. */
  fail(error: Error): void {
    this.#failure ??= error;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.#abandoned.clear();
    if (pending.length > 0) this.#changed();
    for (const p of pending) p.reject(error);
  }

  #changed(): void {
    this.#handlers.onPendingChange?.(this.#pending.size);
  }

  /**
   * Splits what arrived into lines. Only the new chunk is searched, and a
   * line's pieces are joined once, at its end: a long line in many chunks
   * costs its length, not its length times their number. (The stream
   * decodes UTF-8 itself, so a character split between two chunks comes
   * whole.) A handler that throws stops neither this chunk's other lines
   * nor the ones after: its exception is thrown again on its own.
   */
  #receive(chunk: string): void {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf("\n", start)) !== -1) {
      let line = chunk.slice(start, newline);
      start = newline + 1;
      if (this.#partial.length > 0) {
        this.#partial.push(line);
        line = this.#partial.join("");
        this.#partial = [];
      }
      if (line.trim() === "") continue;
      try {
        this.#dispatch(line);
      } catch (error) {
        rethrowLater(error);
      }
    }
    if (start < chunk.length) this.#partial.push(start === 0 ? chunk : chunk.slice(start));
  }

  #dispatch(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#handlers.onProtocolError(new LatchError(`latch wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#handlers.onProtocolError(new LatchError(`latch wrote a message that is not an object: ${line.slice(0, 200)}`));
      return;
    }
    const m = message as Record<string, unknown>;
    if (typeof m["method"] === "string" && !("id" in m)) {
      this.#handlers.onNotification(m["method"], m["params"]);
      return;
    }
    const id = m["id"];
    if (typeof id === "number" && ("result" in m || "error" in m) && this.#abandoned.delete(id)) return;
    const pending = typeof id === "number" ? this.#pending.get(id) : undefined;
    if (pending === undefined || !("result" in m || "error" in m)) {
      const error = m["error"];
      if (isRpcError(error)) {
        this.#handlers.onProtocolError(new LatchRpcError(error.code, error.message, "(unknown request)", error.data));
      } else {
        this.#handlers.onProtocolError(new LatchError(`latch wrote an unexpected message: ${line.slice(0, 200)}`));
      }
      return;
    }
    this.#pending.delete(id as number);
    this.#changed();
    const error = m["error"];
    if (error !== undefined) {
      pending.reject(
        isRpcError(error)
          ? new LatchRpcError(error.code, error.message, pending.method, error.data)
          : new LatchError(`latch answered ${pending.method} with a malformed error: ${JSON.stringify(error)}`),
      );
    } else {
      pending.resolve(m["result"]);
    }
  }
}

/**
 * Throws `error` again from a microtask of its own: an exception of a
 * listener becomes the process's `uncaughtException`, as one thrown by a
 * stream's `data` listener does, without stopping the loop that called it.
 */
export function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

function isRpcError(value: unknown): value is { code: number; message: string; data?: unknown } {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v["code"] === "number" && typeof v["message"] === "string";
}

/** One message as a line. JSON.stringify escapes every control character, so the line holds no raw newline. */
function encode(message: object): string {
  return `${JSON.stringify(message)}\n`;
}
