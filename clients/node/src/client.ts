/**
 * {@link LatchClient}: runs `latch serve` and talks to it.
 *
 * @module
 */

// Its declarations name Node's types and `AsyncDisposable`: they keep these
// references, as TypeScript 6 and later load no `@types/*` package unasked.
/// <reference types="node" preserve="true" />
/// <reference lib="esnext.disposable" preserve="true" />

import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { EventEmitter } from "node:events";
import { toWireConfig, type AnyConfig } from "./config.js";
import { LatchClosedError, LatchDiedError, LatchTimeoutError } from "./errors.js";
import type { LatchEvent } from "./event.js";
import type {
  AsyncResult,
  DiagnosticsNotification,
  Explanation,
  InitializeResult,
  Outcome,
  TrustChange,
  TrustedHook,
} from "./outcome.js";
import { AsyncQueue } from "./queue.js";
import { Connection, rethrowLater } from "./rpc.js";
import { chooseBinary, holdOpen, spawnServe, Tail } from "./spawn.js";

/** How many characters of latch's stderr are kept for {@link LatchDiedError}. */
const STDERR_TAIL_CHARS = 8192;
/**
 * How long to wait, after the process exited, for its stdout and stderr to
 * end (longer only when a process it started still holds them open).
 */
const DRAIN_MS = 500;
/** The events whose listeners wait for latch's notifications (and keep Node running). */
const NOTIFICATION_EVENTS = ["asyncResult", "diagnostics", "notification"] as const;
/** The longest delay `setTimeout` takes; a longer limit means none. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * How long a latch sent SIGTERM has to exit before SIGKILL. On SIGTERM latch
 * cancels everything, kills its hooks' process groups and exits, waiting at
 * most 10 s for answers nobody reads (docs/serve.md#flow-control); SIGKILL
 * would leave its hooks running.
 */
const TERM_GRACE_MS = 10_000;

/** Options of {@link LatchClient.start}. */
export interface StartOptions {
  /**
   * The latch binary. Default: `$LATCH_BIN`, else `latch` on `PATH`. A
   * relative path is resolved against this process's working directory.
   */
  bin?: string | undefined;
  /** latch's working directory (relative paths in `config` are resolved there). Default: this process's. */
  cwd?: string | undefined;
  /**
   * latch's environment. Default: this process's. When given, `$LATCH_BIN`
   * and the `PATH` searched for `latch` are this environment's (without
   * `PATH` in it, `spawn`'s default search path).
   */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * The `initialize` configuration: `latch fire`'s flags, with camelCase
   * (`stateDir`) or snake_case (`state_dir`) keys. Default: `{}`.
   */
  config?: AnyConfig | undefined;
  /** Called with each chunk latch writes on stderr (its logs). Default: kept only for errors. */
  onStderr?: ((text: string) => void) | undefined;
  /**
   * A listener for the `asyncResult` event, added before `initialize` is
   * sent: unlike one added with {@link LatchClient.on} once `start`
   * resolves, it also hears the notifications latch sends before or with
   * its answer to `initialize`. It stays on, as `on`'s would (it keeps Node
   * running; {@link LatchClient.off} removes it).
   */
  onAsyncResult?: ((result: AsyncResult) => void) | undefined;
  /** A listener for the `diagnostics` event, added before `initialize` is sent (as `onAsyncResult`). */
  onDiagnostics?: ((notification: DiagnosticsNotification) => void) | undefined;
  /** A listener for the `notification` event, added before `initialize` is sent (as `onAsyncResult`). */
  onNotification?: ((method: string, params: unknown) => void) | undefined;
  /**
   * How long latch may take to answer `initialize`, in milliseconds: past
   * it `start` rejects with {@link LatchTimeoutError} and latch is ended.
   * Default 30000 (`Infinity`: no limit).
   */
  startTimeoutMs?: number | undefined;
  /** Aborts the start: `start` rejects with `signal.reason` and latch is ended. */
  signal?: AbortSignal | undefined;
  /**
   * After a `fire` was aborted, how long to wait, in milliseconds, for the
   * outcome of what ran: past it the fire rejects with
   * {@link LatchTimeoutError} (latch stopped answering). Default 10000.
   */
  cancelGraceMs?: number | undefined;
}

/** Options of {@link LatchClient.fire} and {@link LatchClient.explain}. */
export interface RequestOptions {
  /**
   * Cancels the request. For `fire`: aborting sends `$/cancelRequest`, latch
   * kills the running hook and starts no further one, and the promise
   * resolves with the outcome of what ran (its `warnings` say the dispatch
   * was cancelled; a deny decided before the cancel stays, while hooks that
   * never ran decided nothing, so a cancelled `tool_before` may say
   * `proceed`). A fire still queued behind an earlier event of its session
   * is answered at once, having run nothing. If latch does not answer
   * within `cancelGraceMs` of the cancel (see {@link StartOptions}), the
   * fire rejects with {@link LatchTimeoutError}. A signal already
   * aborted when `fire` is called sends nothing and rejects with
   * `signal.reason`. For `explain`, which runs nothing, aborting rejects.
   * For `trustList`, `trustApprove` and `trustRevoke`, aborting rejects
   * too, but an approval or revocation already sent is not undone: latch
   * may have applied it (or apply it still). A signal already aborted
   * sends nothing.
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@link LatchClient.fire}. */
export interface FireOptions extends RequestOptions {
  /**
   * What an abort of `signal` does to the promise: `"outcome"` (the
   * default) resolves it with the outcome of what ran, as above;
   * `"reject"` rejects it at once with `signal.reason`, as `fetch` and
   * `timers/promises` do, and drops the outcome latch sends later. Either
   * way latch is sent `$/cancelRequest`.
   */
  onAbort?: "outcome" | "reject" | undefined;
}

/** Options of {@link LatchClient.close}. */
export interface CloseOptions {
  /**
   * How long to wait, in milliseconds, for `shutdown` (which lets every
   * `fire` in flight finish) and for the process to exit; after it latch is
   * told to `exit` (cancelling what still runs), then sent SIGTERM, then
   * killed (see {@link LatchClient.close}). Default 10000 (`Infinity`: no
   * limit).
   */
  timeoutMs?: number | undefined;
}

/**
 * Options of the notification iterators: {@link LatchClient.asyncResults},
 * {@link LatchClient.diagnostics} and {@link LatchClient.notifications}.
 */
export interface IterateOptions {
  /**
   * Ends the iteration when it aborts (a `next()` waiting then resolves
   * `done`; what arrived before the abort and was not read yet is still
   * yielded first).
   */
  signal?: AbortSignal | undefined;
}

/**
 * A notification as {@link LatchClient.notifications} yields it: its
 * method, and its params typed by it.
 */
export type LatchNotification =
  | { method: "latch/asyncResult"; params: AsyncResult }
  | { method: "latch/diagnostics"; params: DiagnosticsNotification };

/** How the latch process ended. */
export interface ExitInfo {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** The events a {@link LatchClient} emits, with their listener arguments. */
export interface LatchClientEvents {
  /** `latch/asyncResult`: an `async` hook finished. */
  asyncResult: [result: AsyncResult];
  /**
   * `latch/diagnostics`: the configuration was reloaded after an edit on disk
   * (sent after every reload, clean or not), or an event from a new `cwd`
   * loaded one with diagnostics. `cwd` is the working directory it is for
   * (`null`: the project's); `kept` lists the files whose new text has errors
   * and keep their last good version, `reason` says why (`null` when nothing
   * is kept), `reloaded` is false when the whole configuration loaded before
   * stays in use, and `diagnostics` are those of the files on disk.
   */
  diagnostics: [notification: DiagnosticsNotification];
  /** Any notification, known or not, before the specific event. */
  notification: [method: string, params: unknown];
  /** A message latch sent that matches no request (for instance an error with `id: null`). */
  protocolError: [error: Error];
  /** The latch process ended. */
  exit: [info: ExitInfo];
}

type Listener<K extends keyof LatchClientEvents> = (...args: LatchClientEvents[K]) => void;

/**
 * A running `latch serve`. Create one with {@link LatchClient.start}, fire
 * events with {@link fire}, and end it with {@link close} (or `await using`).
 *
 * Requests may run at once; latch runs the events of one session in order
 * and those of different sessions in parallel, and each answer is matched to
 * its request by id.
 *
 * The client keeps Node running only while something waits on it: a
 * request in flight, a listener for its notifications (`asyncResult`,
 * `diagnostics`, `notification`; an {@link asyncResults}, {@link diagnostics}
 * or {@link notifications} iterator is one), or {@link close}, as a
 * `MessagePort` does for its `message` listeners.
 * Otherwise (a client never closed) Node may exit, and latch then exits
 * too, at the end of its input.
 */
export class LatchClient implements AsyncDisposable {
  /** What `initialize` answered: the server, the dialects loaded, the load diagnostics. */
  readonly initializeResult: InitializeResult;

  readonly #child: ChildProcessWithoutNullStreams;
  readonly #connection: Connection;
  readonly #emitter = new EventEmitter();
  readonly #exited: Promise<ExitInfo>;
  #exitInfo: ExitInfo | undefined;
  readonly #stderr: Tail;
  readonly #cancelGraceMs: number;
  #closing: Promise<ExitInfo> | undefined;
  /** Whether the process and its pipes keep Node running (they do when spawned). */
  #held = true;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    connection: Connection,
    exited: Promise<ExitInfo>,
    stderr: Tail,
    initializeResult: InitializeResult,
    cancelGraceMs: number,
    listeners: Pick<StartOptions, "onAsyncResult" | "onDiagnostics" | "onNotification">,
  ) {
    this.#child = child;
    this.#connection = connection;
    this.#exited = exited;
    this.#stderr = stderr;
    this.initializeResult = initializeResult;
    this.#cancelGraceMs = cancelGraceMs;
    // A listener removed (by `off`, or a `once` that fired) may leave nothing to wait for.
    this.#emitter.on("removeListener", () => this.#holdWhileBusy());
    if (listeners.onAsyncResult !== undefined) this.on("asyncResult", listeners.onAsyncResult);
    if (listeners.onDiagnostics !== undefined) this.on("diagnostics", listeners.onDiagnostics);
    if (listeners.onNotification !== undefined) this.on("notification", listeners.onNotification);
  }

  /**
   * Starts `latch serve` and initializes it with `options.config`.
   *
   * @throws {LatchNotFoundError} the binary does not exist or cannot be run.
   * @throws {LatchError} `cwd` does not exist or is not a directory (the message names it), or the binary could not be started otherwise.
   * @throws {LatchRpcError} `initialize` failed (an unknown config key, …); the process is ended.
   * @throws {LatchDiedError} latch ended before answering `initialize`.
   * @throws {LatchTimeoutError} no answer to `initialize` within `startTimeoutMs`; the process is ended.
   * @throws `signal.reason` when `signal` aborts; the process is ended.
   */
  static async start(options: StartOptions = {}): Promise<LatchClient> {
    const { signal } = options;
    const startTimeoutMs = milliseconds(options.startTimeoutMs, 30_000, "startTimeoutMs");
    const cancelGraceMs = milliseconds(options.cancelGraceMs, 10_000, "cancelGraceMs");
    signal?.throwIfAborted();
    const wireConfig = toWireConfig(options.config ?? {});
    const { bin, from } = chooseBinary(options.bin, options.env);
    const child = await spawnServe(bin, from, options.cwd, options.env);

    const stderr = new Tail(STDERR_TAIL_CHARS);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      stderr.push(text);
      try {
        options.onStderr?.(text);
      } catch (error) {
        rethrowLater(error);
      }
    });

    // The client exists only once initialize answered: route through late-bound
    // handlers. Notifications before it (sent before, or with, the answer) are
    // replayed to it then, when only the listeners of `options` hear them.
    let client: LatchClient | undefined;
    const early: Array<[string, unknown]> = [];
    const connection = new Connection(child.stdout, child.stdin, {
      onNotification: (method, params) => {
        if (client !== undefined) client.#onNotification(method, params);
        else early.push([method, params]);
      },
      onProtocolError: (error) => {
        if (client !== undefined) client.#emit("protocolError", error);
      },
      onPendingChange: () => {
        if (client !== undefined) client.#holdWhileBusy();
      },
    });

    const exited = new Promise<ExitInfo>((resolve) => {
      child.once("exit", (exitCode, signal) => {
        const info: ExitInfo = { exitCode, signal };
        // Let the last answers on stdout, and the last words on stderr (for
        // LatchDiedError), arrive before failing what still waits: "close"
        // follows "exit" once both pipes have ended.
        const drained = new Promise<void>((done) => {
          child.once("close", () => done());
          setTimeout(done, DRAIN_MS).unref();
        });
        void drained.then(() => {
          const closing = client !== undefined && client.#closing !== undefined;
          connection.fail(
            closing
              ? new LatchClosedError("the latch client was closed")
              : new LatchDiedError(exitCode, signal, stderr.text),
          );
          if (client !== undefined) {
            client.#exitInfo = info;
            client.#emit("exit", info);
          }
          resolve(info);
        });
      });
    });

    try {
      const result = await bounded(
        connection.request<InitializeResult>("initialize", wireConfig).result,
        startTimeoutMs,
        signal,
        () => new LatchTimeoutError(`${bin} serve did not answer initialize within ${startTimeoutMs} ms`),
      );
      client = new LatchClient(child, connection, exited, stderr, result, cancelGraceMs, options);
      for (const [method, params] of early) client.#onNotification(method, params);
      client.#holdWhileBusy();
      return client;
    } catch (error) {
      // latch exits at the end of its input. A binary that did not answer
      // in time, or a start given up on, is told to stop at once as well.
      child.stdin.end();
      const terminated = error instanceof LatchTimeoutError || signal?.aborted === true;
      if (terminated) child.kill("SIGTERM");
      await stop(child, exited, 2000, terminated);
      throw error;
    }
  }

  /** The process id of `latch serve`. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** How the process ended, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exitInfo;
  }

  /** The last few KiB latch wrote on stderr. */
  get stderrTail(): string {
    return this.#stderr.text;
  }

  /**
   * Fires one event and resolves with its outcome.
   *
   * @throws {LatchRpcError} latch refused the request (`-32602` for an invalid event, naming the field).
   * @throws {LatchDiedError} the process ended before answering.
   * @throws {LatchClosedError} the client was closed.
   */
  fire(event: LatchEvent, options: FireOptions = {}): Promise<Outcome> {
    const { signal, onAbort = "outcome" } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const { id, result } = this.#request<Outcome>("fire", event);
    if (signal !== undefined) {
      let grace: NodeJS.Timeout | undefined;
      const cancel = (): void => {
        this.#connection.notify("$/cancelRequest", { id });
        if (onAbort === "reject") {
          this.#connection.abandon(id, signal.reason as Error);
          return;
        }
        if (this.#cancelGraceMs > MAX_TIMER_MS) return;
        grace = setTimeout(() => {
          const ms = this.#cancelGraceMs;
          this.#connection.abandon(
            id,
            new LatchTimeoutError(`fire was aborted, but latch did not answer within ${ms} ms of its $/cancelRequest`),
          );
        }, this.#cancelGraceMs);
      };
      signal.addEventListener("abort", cancel, { once: true });
      const forget = (): void => {
        signal.removeEventListener("abort", cancel);
        clearTimeout(grace);
      };
      result.then(forget, forget);
    }
    return result;
  }

  /**
   * Says, for one event, every configured hook, whether it would run, and
   * why. Nothing runs.
   *
   * @throws {LatchRpcError} an invalid event.
   */
  explain(event: LatchEvent, options: RequestOptions = {}): Promise<Explanation[]> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const { result } = this.#request<Explanation[]>("explain", event);
    if (signal === undefined) return result;
    return new Promise((resolve, reject) => {
      const abort = (): void => reject(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      result.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
    });
  }

  /**
   * Every hook the project's configuration loads, with its trust state
   * (`trust/list`; docs/trust.md), for the harness's own approval prompt.
   * Aborting `signal` rejects with `signal.reason`; one already aborted
   * sends nothing.
   */
  trustList(options: RequestOptions = {}): Promise<TrustedHook[]> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return this.#withSignal(this.#request<TrustedHook[]>("trust/list", null).result, signal);
  }

  /**
   * Approves hooks as they are now: those named (by label, or `FILE:LINE`),
   * or every one that needs approval with `all: true`. Resolves to the
   * approved hooks.
   *
   * A `signal` already aborted sends nothing and rejects with
   * `signal.reason`. Aborting it later rejects the same way, but does not
   * undo the request: latch may have applied it already (or apply it
   * still); {@link trustList} says what holds.
   *
   * @throws {LatchRpcError} a name matches no loaded hook, or none is given.
   */
  async trustApprove(
    select: { hooks?: string[]; all?: boolean },
    options: RequestOptions = {},
  ): Promise<TrustChange[]> {
    options.signal?.throwIfAborted();
    const params = { hooks: select.hooks ?? [], all: select.all ?? false };
    const result = this.#request<{ approved: TrustChange[] }>("trust/approve", params).result;
    return (await this.#withSignal(result, options.signal)).approved;
  }

  /**
   * Withdraws approvals (hooks named as for {@link trustApprove}; `signal`
   * as there: an abort after the request was sent does not undo it).
   */
  async trustRevoke(
    select: { hooks?: string[]; all?: boolean },
    options: RequestOptions = {},
  ): Promise<TrustChange[]> {
    options.signal?.throwIfAborted();
    const params = { hooks: select.hooks ?? [], all: select.all ?? false };
    const result = this.#request<{ revoked: TrustChange[] }>("trust/revoke", params).result;
    return (await this.#withSignal(result, options.signal)).revoked;
  }

  /**
   * `result`, or the signal's reason once it aborts. The request was sent:
   * its answer, or its error, is then dropped (never an unhandled rejection).
   */
  #withSignal<T>(result: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    result.catch(() => undefined);
    if (signal === undefined) return result;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const abort = (): void => reject(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      result.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
    });
  }

  /**
   * Sends any request; for methods this package does not know yet.
   *
   * @throws {LatchRpcError} latch answered with an error.
   */
  request<T = unknown>(method: string, params?: unknown): Promise<T> {
    return this.#request<T>(method, params).result;
  }

  /**
   * Adds a listener. See {@link LatchClientEvents}. While a listener for a
   * notification (`asyncResult`, `diagnostics`, `notification`) is on, the
   * client keeps Node running.
   */
  on<K extends keyof LatchClientEvents>(event: K, listener: Listener<K>): this {
    this.#emitter.on(event, listener as (...args: unknown[]) => void);
    this.#holdWhileBusy();
    return this;
  }

  /** Adds a listener called once. */
  once<K extends keyof LatchClientEvents>(event: K, listener: Listener<K>): this {
    this.#emitter.once(event, listener as (...args: unknown[]) => void);
    this.#holdWhileBusy();
    return this;
  }

  /** Removes a listener. */
  off<K extends keyof LatchClientEvents>(event: K, listener: Listener<K>): this {
    this.#emitter.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /**
   * The `latch/asyncResult` notifications from now on, as an async iterator.
   * It ends when the process exits, when `signal` aborts, or on `break`.
   */
  asyncResults(options: IterateOptions = {}): AsyncIterableIterator<AsyncResult> {
    return this.#iterate<AsyncResult>(options.signal, (push) => this.#listen("asyncResult", push));
  }

  /**
   * The `latch/diagnostics` notifications from now on (a reload after an
   * edit on disk, a configuration loaded for a new `cwd`), as an async
   * iterator. It ends when the process exits, when `signal` aborts, or on
   * `break`.
   */
  diagnostics(options: IterateOptions = {}): AsyncIterableIterator<DiagnosticsNotification> {
    return this.#iterate<DiagnosticsNotification>(options.signal, (push) => this.#listen("diagnostics", push));
  }

  /**
   * Both kinds of notification from now on, in the order latch sent them,
   * as an async iterator of `{ method, params }` ({@link LatchNotification}:
   * `method` tells them apart). It ends when the process exits, when
   * `signal` aborts, or on `break`. A method this package does not know
   * comes only to the `notification` event.
   */
  notifications(options: IterateOptions = {}): AsyncIterableIterator<LatchNotification> {
    return this.#iterate<LatchNotification>(options.signal, (push) => {
      const offResults = this.#listen("asyncResult", (params) => push({ method: "latch/asyncResult", params }));
      const offDiagnostics = this.#listen("diagnostics", (params) => push({ method: "latch/diagnostics", params }));
      return () => {
        offResults();
        offDiagnostics();
      };
    });
  }

  /** Adds `listener` for `event`; returns what removes it. */
  #listen<K extends keyof LatchClientEvents>(event: K, listener: Listener<K>): () => void {
    this.on(event, listener);
    return () => this.off(event, listener);
  }

  /**
   * An async iterator of what `listen` pushes (it returns what stops
   * listening): it ends when the process exits, when `signal` aborts, or
   * on `break`, and stops listening then. Ended at once if the process has
   * exited or `signal` has aborted already.
   */
  #iterate<T>(
    signal: AbortSignal | undefined,
    listen: (push: (value: T) => void) => () => void,
  ): AsyncIterableIterator<T> {
    const end = (): void => queue.end();
    let unlisten = (): void => {};
    const queue: AsyncQueue<T> = new AsyncQueue(() => {
      unlisten();
      this.off("exit", end);
      signal?.removeEventListener("abort", end);
    });
    unlisten = listen((value) => queue.push(value));
    this.on("exit", end);
    signal?.addEventListener("abort", end, { once: true });
    if (this.#exitInfo !== undefined || signal?.aborted === true) queue.end();
    return queue;
  }

  /**
   * Ends latch: `shutdown` (every `fire` in flight finishes first), then
   * `exit`, then waits for the process. Past `timeoutMs` latch gets `exit`
   * at once (cancelling what still runs); if it still runs a second later
   * (it reads nothing while its flow control holds it, docs/serve.md), it
   * is sent SIGTERM, on which it kills every hook and exits; and if it
   * still runs 10 s after that, SIGKILL (which would leave its hooks
   * running). Requests still waiting then reject with
   * {@link LatchClosedError}. Calling it again returns the same promise.
   *
   * @throws {RangeError} `timeoutMs` is not a number of milliseconds (the promise rejects).
   */
  close(options: CloseOptions = {}): Promise<ExitInfo> {
    if (this.#closing === undefined) {
      let timeoutMs: number;
      try {
        timeoutMs = milliseconds(options.timeoutMs, 10_000, "timeoutMs");
      } catch (error) {
        return Promise.reject(error);
      }
      this.#closing = this.#close(timeoutMs);
    }
    this.#holdWhileBusy();
    return this.#closing;
  }

  /** `await using latch = await LatchClient.start(…)` closes it at the end of the block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #close(timeoutMs: number): Promise<ExitInfo> {
    if (this.#exitInfo !== undefined) return this.#exitInfo;
    const deadline = Date.now() + timeoutMs;
    const shutdown = this.#connection.request<null>("shutdown").result.then(
      () => "done" as const,
      () => "done" as const,
    );
    await Promise.race([shutdown, this.#exited, delay(timeoutMs)]);
    this.#connection.notify("exit");
    this.#child.stdin.end();
    return stop(this.#child, this.#exited, Math.max(deadline - Date.now(), 1000));
  }

  #request<T>(method: string, params: unknown): { id: number; result: Promise<T> } {
    if (this.#closing !== undefined) {
      return { id: 0, result: Promise.reject(new LatchClosedError("the latch client is closed")) };
    }
    return this.#connection.request<T>(method, params);
  }

  /**
   * Keeps Node running while something waits on the client (a request in
   * flight, a notification listener, {@link close}), and lets it exit
   * otherwise; latch exits with it, at the end of its input.
   */
  #holdWhileBusy(): void {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const listening = NOTIFICATION_EVENTS.some((event) => this.#emitter.listenerCount(event) > 0);
    const busy = this.#connection.pendingCount > 0 || listening || this.#closing !== undefined;
    if (busy === this.#held) return;
    this.#held = busy;
    holdOpen(this.#child, busy);
  }

  #onNotification(method: string, params: unknown): void {
    this.#emit("notification", method, params);
    if (method === "latch/asyncResult") {
      this.#emit("asyncResult", params as AsyncResult);
    } else if (method === "latch/diagnostics") {
      this.#emit("diagnostics", params as DiagnosticsNotification);
    }
  }

  /**
   * Calls the listeners of `event` as `emit` does, but one that throws stops
   * neither the others nor the client (the rest of what latch sent, the end
   * of {@link close}): its exception is thrown again on its own, an
   * `uncaughtException` as a throwing `data` listener of a stream gives.
   */
  #emit<K extends keyof LatchClientEvents>(event: K, ...args: LatchClientEvents[K]): void {
    // `rawListeners`: a `once` listener's wrapper removes it as it calls it.
    for (const listener of this.#emitter.rawListeners(event)) {
      try {
        Reflect.apply(listener, this.#emitter, args);
      } catch (error) {
        rethrowLater(error);
      }
    }
  }
}

/** Resolves after `ms` milliseconds; never, past the longest delay `setTimeout` takes. */
function delay(ms: number): Promise<void> {
  if (ms > MAX_TIMER_MS) return new Promise(() => undefined);
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Waits `ms` milliseconds for a latch told to stop (`exit`, the end of its
 * input) to exit; then sends SIGTERM, on which latch cancels everything,
 * kills its hooks' process groups and exits; and past
 * {@link TERM_GRACE_MS} more, SIGKILL. `terminated`: SIGTERM was sent
 * already, SIGKILL follows `ms`.
 */
async function stop(
  child: ChildProcessWithoutNullStreams,
  exited: Promise<ExitInfo>,
  ms: number,
  terminated = false,
): Promise<ExitInfo> {
  let ended = await Promise.race([exited, delay(ms)]);
  if (ended !== undefined) return ended;
  if (!terminated) {
    child.kill("SIGTERM");
    ended = await Promise.race([exited, delay(TERM_GRACE_MS)]);
    if (ended !== undefined) return ended;
  }
  child.kill("SIGKILL");
  return exited;
}

/**
 * A limit in milliseconds: `value`, or `fallback` when it is not given. One
 * past the longest delay `setTimeout` takes (`Infinity` included) is no limit:
 * every timer made from it goes through {@link delay} or checks `MAX_TIMER_MS`.
 */
function milliseconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 0)) throw new RangeError(`${name} must be a number of milliseconds, not ${String(value)}`);
  return value;
}

/**
 * `promise`, or a rejection with `timeout()` after `ms` milliseconds, or
 * with `signal.reason` once `signal` aborts, whichever comes first.
 */
function bounded<T>(
  promise: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
  timeout: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const abort = (): void => settle(() => reject(signal?.reason));
    const settle = (then: () => void): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      then();
    };
    promise.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
    if (signal?.aborted === true) {
      abort();
      return;
    }
    signal?.addEventListener("abort", abort, { once: true });
    if (ms <= MAX_TIMER_MS) timer = setTimeout(() => settle(() => reject(timeout())), ms);
  });
}
