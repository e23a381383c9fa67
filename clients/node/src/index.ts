/**
 * `@latch/client`: run `latch serve` from Node and fire hook events at it.
 *
 * ```ts
 * import { LatchClient } from "@latch/client";
 * await using latch = await LatchClient.start({ config: { dialects: ["claude"], stateDir: "/tmp/latch" } });
 * const outcome = await latch.fire({ event: "tool_before", session_id: "s1", tool: { name: "Bash", input: { command: "ls" } } });
 * ```
 *
 * @module
 */

export { pieceFromContext, userMessage } from "./claude.js";
export type {
  AttachmentPiece,
  Block,
  MessagePiece,
  Piece,
  TextBlock,
  ToolResultBlock,
  ToolResultPiece,
} from "./claude.js";
export { LatchClient } from "./client.js";
export type {
  CloseOptions,
  ExitInfo,
  FireOptions,
  IterateOptions,
  LatchClientEvents,
  LatchNotification,
  RequestOptions,
  StartOptions,
} from "./client.js";
export { toWireConfig } from "./config.js";
export type { AnyConfig, Dialect, LatchConfig, WireConfig } from "./config.js";
export {
  ErrorCode,
  LatchClosedError,
  LatchDiedError,
  LatchError,
  LatchNotFoundError,
  LatchRpcError,
  LatchTimeoutError,
} from "./errors.js";
export type {
  Compaction,
  EventFields,
  EventKind,
  Json,
  LatchEvent,
  OtherEvent,
  ToolCall,
  ToolEvent,
  ToolEventKind,
} from "./event.js";
export { isCancelled } from "./outcome.js";
export type {
  AsyncResult,
  ContextEntry,
  Continuation,
  Decision,
  Diagnostic,
  DiagnosticsNotification,
  ElicitationAnswer,
  Explanation,
  Halt,
  InitializeResult,
  Notice,
  NoticeKind,
  Outcome,
  PermissionUpdates,
  Placement,
  PublishedEvent,
  Reason,
  Run,
  RunStatus,
  SourceLocation,
  TrustChange,
  TrustedHook,
} from "./outcome.js";
