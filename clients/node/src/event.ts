/**
 * The event JSON: what happened, as the harness tells latch (`fire`'s and
 * `explain`'s params). See `docs/events.md` in the latch repository.
 *
 * The types are closed, as latch is: latch rejects unknown fields at
 * every level (with a {@link LatchRpcError} naming the field), and so does
 * the compiler, for an event written as an object literal. A field a newer
 * latch knows and this package does not yet needs a cast
 * (`{ ... } as LatchEvent`).
 *
 * @module
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The event kinds of latch's neutral event. */
export type EventKind =
  | "session_start"
  | "user_prompt"
  | "user_prompt_ready"
  | "turn_start"
  | "tool_before"
  | "permission_request"
  | "tool_after"
  | "tool_failure"
  | "stop"
  | "turn_cancelled"
  | "subagent_start"
  | "subagent_stop"
  | "compact_before"
  | "compact_after"
  | "notification"
  | "session_end"
  | "setup"
  | "instructions_loaded"
  | "prompt_expansion"
  | "message_display"
  | "model_switch_before"
  | "model_switch_after"
  | "skill_shell_before"
  | "permission_denied"
  | "tool_batch"
  | "task_created"
  | "task_completed"
  | "teammate_idle"
  | "stop_failure"
  | "config_change"
  | "cwd_changed"
  | "directory_added"
  | "file_changed"
  | "worktree_create"
  | "worktree_remove"
  | "elicitation"
  | "elicitation_result";

/** A tool call (`tool` on tool events, the entries of `tool_calls`). */
export interface ToolCall {
  /** The harness's name for the tool; matchers test it. Required, not empty. */
  name: string;
  /** The arguments, exactly as the model passed them (any JSON value). */
  input?: unknown;
  /** The harness's id for this call; the same on `tool_before` and `tool_after`. */
  call_id?: string | undefined;
  /** The tool's result, on `tool_after` (any JSON value). */
  output?: unknown;
  /** The tool's error, on `tool_failure`. */
  error?: string | undefined;
  /** How long the tool ran, in milliseconds. */
  duration_ms?: number | undefined;
  /** On `tool_failure`: the user interrupted the tool. */
  interrupted?: boolean | undefined;
  /** The tool server (MCP) the tool belongs to: its name and where it is configured. */
  server?: { name: string; source: string } | undefined;
}

/** Compaction figures, on `compact_before` and `compact_after`. */
export interface Compaction {
  estimated_tokens?: number | undefined;
  budget_tokens?: number | undefined;
  round?: number | undefined;
  units_covered?: number | undefined;
  messages_covered?: number | undefined;
  summary_tokens?: number | undefined;
  /** The user's instructions for the summary (`/compact <instructions>`). */
  instructions?: string | undefined;
  /** The summary, on `compact_after`. */
  summary?: string | undefined;
}

/** The event kinds that carry a tool call: on these, `tool` is required. */
export type ToolEventKind = "tool_before" | "permission_request" | "permission_denied" | "tool_after" | "tool_failure";

/**
 * One event: `event` is required, and `tool` on the tool events
 * ({@link ToolEventKind}). `null` means absent for every optional field.
 */
export type LatchEvent = ToolEvent | OtherEvent;

/** An event of a {@link ToolEventKind}: its tool call is required. */
export interface ToolEvent extends EventFields {
  /** What kind of point this is. */
  event: ToolEventKind;
  /** The tool call. */
  tool: ToolCall;
}

/** An event of any other kind. */
export interface OtherEvent extends EventFields {
  /** What kind of point this is. */
  event: Exclude<EventKind, ToolEventKind>;
}

/** The fields every event kind may carry, but `event` (see {@link LatchEvent}). */
export interface EventFields {
  /** An id for this occurrence; latch makes one up when absent. */
  id?: string | undefined;
  /** The session the event belongs to; per-session state needs it. */
  session_id?: string | undefined;
  /** The agent's working directory. */
  cwd?: string | undefined;
  transcript_path?: string | undefined;
  /** A directory the session may use for scratch files (claude: `scratchpad_dir`). */
  scratchpad_dir?: string | undefined;
  request_id?: string | undefined;
  turn_id?: string | undefined;
  agent_run_id?: string | undefined;
  model?: string | undefined;
  effort?: string | undefined;
  permission_mode?: string | undefined;
  prompt_id?: string | undefined;
  agent_id?: string | undefined;
  agent_type?: string | undefined;
  agent_transcript_path?: string | undefined;
  last_assistant_message?: string | undefined;
  /** The tool call, on tool events. */
  tool?: ToolCall | undefined;
  /** The user's prompt, on `user_prompt`, `user_prompt_ready`, `prompt_expansion`. */
  prompt?: string | undefined;
  reason?: string | undefined;
  finish_reason?: string | undefined;
  source?: string | undefined;
  trigger?: string | undefined;
  message?: string | undefined;
  notification_type?: string | undefined;
  title?: string | undefined;
  /** The session's title, when it has one (claude: `session_title`). */
  session_title?: string | undefined;
  /** The harness's estimate of the current context size, in tokens. */
  context_tokens?: number | undefined;
  /** On `session_start` of a resumed session: seconds since the model's last answer. */
  seconds_since_last_response?: number | undefined;
  /** On `session_start` of a resumed session: whether the prompt cache has likely expired. */
  prompt_cache_likely_expired?: boolean | undefined;
  /** On `session_start` of a resumed session and the model-switch events: the cost of writing the context to the cache again, in US dollars. */
  estimated_cache_write_usd?: number | undefined;
  compaction?: Compaction | undefined;
  /** On `stop`: questions to the user are still unanswered. */
  pending_questions?: boolean | undefined;
  /** On `tool_batch`: every call of the batch, in the model's order. */
  tool_calls?: ToolCall[] | undefined;
  error?: string | undefined;
  error_details?: string | undefined;
  expansion?: {
    kind?: "slash_command" | "mcp_prompt" | (string & {});
    command_name?: string;
    command_args?: string;
    command_source?: string;
    /** On `skill_shell_before`: `user`, `claude` or `other`. */
    invoked_by?: "user" | "claude" | "other" | (string & {});
  } | undefined;
  /** On `model_switch_before` and `model_switch_after`: the change of model. */
  model_switch?: {
    from?: string;
    to?: string;
    /** What was asked for; absent for the default model. */
    requested?: string;
    /** `false` runs every claude matcher group (a model the harness does not know). */
    known?: boolean;
    prompt_cache_warm?: boolean;
    cache_ttl?: "5m" | "1h" | (string & {});
    pricing?: "configured" | "catalog" | "default" | (string & {});
  } | undefined;
  instructions?: {
    file_path?: string;
    memory_type?: string;
    load_reason?: string;
    globs?: string[];
    trigger_file_path?: string;
    parent_file_path?: string;
  } | undefined;
  file_path?: string | undefined;
  change?: "change" | "add" | "unlink" | (string & {}) | undefined;
  old_cwd?: string | undefined;
  directory?: string | undefined;
  worktree?: { name?: string; path?: string } | undefined;
  task?: { id?: string; subject?: string; description?: string } | undefined;
  team?: { teammate_name?: string; team_name?: string } | undefined;
  elicitation?: {
    server?: string;
    message?: string;
    mode?: string;
    url?: string;
    id?: string;
    requested_schema?: unknown;
    action?: string;
    content?: unknown;
  } | undefined;
  display?: { message_id?: string; index?: number; final?: boolean; delta?: string } | undefined;
  /** `permission_request`: the permission rules the harness would offer with its prompt. */
  permission_suggestions?: Json | undefined;
}
