/**
 * The outcome JSON: what the harness must do after an event's hooks ran
 * (`fire`'s result). See `docs/outcome.md` in the latch repository.
 *
 * `event`, `decision` and `runs` are always present; every other field is
 * left out when it is empty, so "absent" always means "nothing to do".
 *
 * @module
 */

import type { Json } from "./event.js";

/**
 * The decision: `deny` refuses, `proceed` goes on (applying any rewrite);
 * `allow`, `ask` and `defer` come from the claude dialect only.
 */
export type Decision = "proceed" | "allow" | "ask" | "defer" | "deny";

/** A deny reason. */
export interface Reason {
  /** The label of the hook that denied. */
  hook: string;
  text: string;
}

/** Where the harness adds a context text. */
export type Placement =
  | "system_prompt"
  | "with_prompt"
  | "after_tool_result"
  | "after_compaction"
  | "first_user_message"
  | "append_to_tool_result"
  | "compaction_prompt";

/** Text a hook asked to show the model. */
export interface ContextEntry {
  hook: string;
  placement: Placement | (string & {});
  /** The text, to be added as it is. */
  text: string;
  /**
   * `true` when the agent sends the text as a message of its own rather than
   * folding it into the tool result before it (only claude's
   * `PermissionDenied` retry reminder); absent otherwise.
   */
  own_message?: boolean;
}

/** Why the model is told about a hook. */
export type NoticeKind = "rewrite" | "block" | "continuation" | "failure" | "ignored" | "rejected";

/** What the model must be told about a hook; deliver `text` verbatim. */
export interface Notice {
  hook: string;
  /** The event in the dialect's spelling (`PreToolUse`, …). */
  event: string;
  kind: NoticeKind | (string & {});
  text: string;
}

/** A session event a hook published (peen's `emitEvent`). */
export interface PublishedEvent {
  type: string;
  summary: string;
  data?: { [key: string]: Json };
  delivery?: "queue" | "wake" | (string & {});
  source: string;
}

/** On `stop` (and a few others): keep working with `prompt` as the next input. */
export interface Continuation {
  prompt: string;
  hooks: string[];
}

/** The claude dialect's `continue: false`: end the agent loop after this event. */
export interface Halt {
  hooks: string[];
  /** For the user only, never the model. */
  reason?: string;
  /** On a prompt: what the user reads. */
  message?: string;
  /** With `message`: what the conversation keeps after the prompt (a user message the model reads). */
  kept?: string;
}

/** A hook's answer to a tool server in place of the user's. */
export interface ElicitationAnswer {
  hook: string;
  action: "accept" | "decline" | "cancel" | (string & {});
  content?: Json;
}

/** `permission_request`: permission rules one hook asks the harness to change (claude: `updatedPermissions`). */
export interface PermissionUpdates {
  hook: string;
  updates: Json[];
}

/** Where a hook entry was declared. */
export interface SourceLocation {
  file: string;
  line?: number;
  column?: number;
}

/** How a hook run ended. */
export type RunStatus = "ok" | "blocked" | "continued" | "failed" | "skipped" | "untrusted";

/** One record per hook that matched the event, for logs and debugging. */
export interface Run {
  hook: string;
  dialect: string;
  /** The event in the dialect's spelling. */
  event: string;
  source?: SourceLocation;
  status: RunStatus | (string & {});
  exit_code?: number;
  /** The signal that killed the hook process, when one did. */
  signal?: number;
  /** Wall-clock time from spawn to the end of the output, in milliseconds. */
  duration_ms: number;
  /** The category of what went wrong (`timeout`, `cancelled`, `hook_blocked`, …). */
  error?: string;
  message?: string;
  stdout_truncated?: true;
  stderr_truncated?: true;
  ignored_fields?: string[];
  /** Only when a trust policy checked the hook (docs/trust.md). */
  trust?: "not_required" | "approved" | "new" | "changed" | "unknown";
}

/** The outcome of one event. */
export interface Outcome {
  /** The event kind this outcome answers. */
  event: string;
  decision: Decision;
  /** Every deny reason, in configuration order. */
  reasons?: Reason[];
  /** `tool_before`: the tool arguments after every rewrite; run the tool with these. */
  tool_input?: Json;
  /** `tool_after`/`tool_failure`: the tool result the model reads instead of the real one. */
  tool_output?: string;
  /** `user_prompt`: the prompt after every rewrite. */
  prompt?: string;
  context?: ContextEntry[];
  notices?: Notice[];
  /** For the user, never the model. */
  warnings?: string[];
  events?: PublishedEvent[];
  continuation?: Continuation;
  /** Variables to set for the shell tool's later calls in this session. */
  shell_env?: { [name: string]: string };
  halt?: Halt;
  /** `permission_denied`: let the model try the refused call again. */
  retry?: boolean;
  /** Files to watch from now on, firing `file_changed` when one changes. */
  watch_paths?: string[];
  /** `worktree_create`: where a hook created the worktree. */
  worktree_path?: string;
  elicitation?: ElicitationAnswer;
  /** `message_display`: the text to show the user instead of the model's. */
  display?: string;
  /** `permission_request`: permission rules hooks ask the harness to change, in configuration order. */
  permission_updates?: PermissionUpdates[];
  /** The session's new title, when a hook gave one. */
  session_title?: string;
  /** `session_start`: a user message to send, as a prompt of its own, before the user's first. */
  initial_user_message?: string;
  /** `session_start`: look for skills and commands again (a hook added some). */
  reload_skills?: boolean;
  /** Terminal escape sequences to write to the user's terminal, in order. */
  terminal_sequences?: string[];
  runs: Run[];
}

/**
 * Whether `outcome` answers a dispatch that was cancelled: a `fire` whose
 * `signal` aborted (`$/cancelRequest`). A cancelled fire still resolves
 * with the outcome of what ran, and latch gives every such outcome a
 * warning that starts with `dispatch cancelled`; this looks for it.
 */
export function isCancelled(outcome: Outcome): boolean {
  return (outcome.warnings ?? []).some((warning) => warning.startsWith("dispatch cancelled"));
}

/** What `explain` says about one configured hook. */
export interface Explanation {
  dialect: string;
  /** The event it is declared for, in the dialect's spelling. */
  event: string;
  hook: string;
  summary?: string;
  /** Where it was declared (`null` when nothing declares it in a file). */
  source?: SourceLocation | null;
  /** Whether it would run. */
  runs: boolean;
  /** Why, or why not. */
  reason: string;
  ignored?: Array<{ key: string; why: string }>;
  /** The time limit it would run under, in milliseconds. */
  timeout_ms?: number | null;
}

/** A load diagnostic, as `latch lint --format json` writes it. */
export interface Diagnostic {
  severity: "error" | "warning" | "info" | (string & {});
  message: string;
  file?: string;
  line?: number;
  column?: number;
  dialect?: string;
  hook?: string;
  event?: string;
  hint?: string;
}

/** `initialize`'s result. */
export interface InitializeResult {
  server: { name: string; version: string };
  /** The dialects latch loaded. */
  dialects: string[];
  /** Every load diagnostic of the configuration. */
  diagnostics: Diagnostic[];
}

/** `latch/asyncResult`: an `async` hook (claude dialect) finished. */
export interface AsyncResult {
  session_id: string;
  dialect: string;
  hook: string;
  event: string;
  /** The texts, which also come with the session's next tool result. */
  texts: string[];
  /**
   * Why the texts could not be kept for the session's next event (its state
   * cannot be used): they are then all there is of the answer.
   */
  warnings?: string[];
}

/**
 * `latch/diagnostics`: load diagnostics of a configuration loaded after
 * `initialize` (an event from a new working directory) or reloaded after an
 * edit on disk. `kept` lists the files whose new text has errors: each keeps
 * its last good version while every other file's edit applies. `reloaded` is
 * false when the whole configuration loaded before stays in use instead.
 */
export interface DiagnosticsNotification {
  /** The working directory the configuration is for (null: the project's). */
  cwd: string | null;
  /** true: loaded for the first time (an event from a new working directory); false: reloaded after an edit. */
  first_load: boolean;
  /** true: the configuration on disk is in use (except the files in `kept`); false: the one loaded before stays, whole. */
  reloaded: boolean;
  /** Why files, or the whole configuration, are kept; null when nothing is. */
  reason: string | null;
  /** Files whose new text has errors: each keeps its last good version. */
  kept: string[];
  diagnostics: Diagnostic[];
}

/** One hook as `trustList` returns it (`latch trust --format json`; docs/trust.md). */
export interface TrustedHook {
  dialect: string;
  event: string;
  hook: string;
  /** `FILE:LINE:COLUMN`. */
  source: string;
  needs_approval: boolean;
  matcher?: string;
  runs: { kind: "command" | "exec" | "http" | "text" };
  scripts?: string[];
  /** Other settings that change what runs, by name. */
  settings?: Record<string, string>;
  trust:
    | { state: "not_required" | "approved" | "new" }
    | { state: "changed"; changes: { what: string; path?: string; before?: string; after?: string }[] };
}

/** A hook `trustApprove` or `trustRevoke` changed. */
export interface TrustChange {
  dialect: string;
  event: string;
  hook: string;
  source: string;
}
