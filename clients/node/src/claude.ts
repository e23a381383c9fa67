/**
 * One user message as Claude Code sends it to the model, built from what a
 * turn made: tool results, the texts of tool events' hooks, and the texts
 * Claude Code keeps as attachments.
 *
 * latch's claude `context` texts are Claude Code's, byte for byte, but
 * Claude Code folds most of them into a tool result instead of sending them
 * as blocks of their own, and a text block may end with one more `"\n"`.
 * Both depend on the rest of the message, which only the harness knows. A
 * harness that builds Claude Code's request itself gets the same blocks from
 * {@link userMessage}: give it the pieces in the order they were made (for
 * each call its `PreToolUse` texts, its result, its `PostToolUse` texts;
 * then the batch's `PostToolBatch` texts), and it merges them as Claude Code
 * 2.1.332 does before each request. The rule is in latch's
 * `docs/dialects/claude.md`, "One user message"; this is the TypeScript twin
 * of `latch::dialect::claude::message`.
 *
 * ```ts
 * const texts = (outcome: Outcome): Piece[] => (outcome.context ?? []).flatMap((c) => pieceFromContext(c) ?? []);
 * // One call: tool_before's texts, its result, tool_after's; then tool_batch's.
 * const pieces: Piece[] = [
 *   ...texts(before),
 *   { kind: "tool_result", tool_use_id: "toolu_1", content: output },
 *   ...texts(after),
 *   ...texts(batch),
 * ];
 * messages.push({ role: "user", content: userMessage(pieces) });
 * ```
 *
 * @module
 */

import type { Json } from "./event.js";
import type { ContextEntry } from "./outcome.js";

/** A tool's result, a message of its own. */
export interface ToolResultPiece {
  kind: "tool_result";
  /** The `tool_use` block's id. */
  tool_use_id: string;
  /** The result as the model reads it: text, or an MCP tool's content blocks. */
  content: string | Json[];
  /**
   * Whether the call failed or was denied. Left out: `false` for a text
   * result, and no key for a list, as Claude Code writes them.
   */
  is_error?: boolean | undefined;
}

/**
 * A text that is a message of its own: the user's prompt, and the reminder
 * after a result a `PermissionDenied` hook lets the model retry.
 */
export interface MessagePiece {
  kind: "message";
  text: string;
}

/**
 * A text Claude Code keeps as an attachment until the request: what a tool
 * event's hooks give the model (`PreToolUse`, `PostToolUse` and
 * `PostToolUseFailure` context and blocking errors, `PostToolBatch`
 * context), the answers of `async` hooks, and `UserPromptSubmit`,
 * `UserPromptExpansion`, `SessionStart` and `SubagentStart` context.
 */
export interface AttachmentPiece {
  kind: "attachment";
  text: string;
}

/** What Claude Code merges into one user message, each piece as it was made. */
export type Piece = ToolResultPiece | MessagePiece | AttachmentPiece;

/** A tool result block of the user message, with any attachment folded into it. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | Json[];
  /** Absent from an MCP tool's result (a list) unless one was given. */
  is_error?: boolean;
}

/** A text block of the user message. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** A content block of the user message, as the Messages API reads it. */
export type Block = ToolResultBlock | TextBlock;

/** Placements whose texts are no part of a user message (`compaction_prompt` belongs to the compaction request). */
const NOT_IN_A_MESSAGE: readonly string[] = ["compaction_prompt", "system_prompt", "after_compaction"];

/**
 * The piece a claude outcome's `context` entry is: `undefined` for a text
 * that is no part of a user message (`compaction_prompt`), a message for
 * an entry marked `own_message` (the `PermissionDenied` retry reminder),
 * else an attachment.
 */
export function pieceFromContext(entry: ContextEntry): MessagePiece | AttachmentPiece | undefined {
  if (NOT_IN_A_MESSAGE.includes(entry.placement)) return undefined;
  if (entry.placement === "after_tool_result" && entry.own_message === true) {
    return { kind: "message", text: entry.text };
  }
  return { kind: "attachment", text: entry.text };
}

/** The block of a tool result piece, its `is_error` as Claude Code writes it. */
function toolResultBlock(piece: ToolResultPiece): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: piece.tool_use_id, content: piece.content };
  const isError = piece.is_error ?? (typeof piece.content === "string" ? false : undefined);
  if (isError !== undefined) block.is_error = isError;
  return block;
}

/**
 * The content blocks of the user message Claude Code sends for `pieces`,
 * given in the order they were made.
 *
 * - Each attachment moves back to just after the last tool result made
 *   before it (or to the front).
 * - A piece that is a message of its own, when it starts with a text and the
 *   blocks so far end with a text, adds `"\n"` to that earlier text.
 * - An attachment never adds one: it is folded into a tool result that ends
 *   the blocks so far (a text: the result trimmed, a blank line, the text
 *   trimmed; an MCP tool's list: its last text block gets `"\n"` and the
 *   text joins the list as a block), or else becomes a text block.
 * - Tool results always come first.
 */
export function userMessage(pieces: Iterable<Piece>): Block[] {
  let blocks: Block[] = [];
  for (const piece of attachmentsMovedBack([...pieces])) {
    switch (piece.kind) {
      case "tool_result":
        pushMessage(blocks, toolResultBlock(piece));
        break;
      case "message":
        pushMessage(blocks, { type: "text", text: piece.text });
        break;
      case "attachment":
        pushAttachment(blocks, piece.text);
        break;
    }
    // Stable: tool results first, everything else in its order.
    blocks = [...blocks.filter((b) => b.type === "tool_result"), ...blocks.filter((b) => b.type !== "tool_result")];
  }
  return blocks;
}

/**
 * Each attachment moved back to just after the last tool result made before
 * it, or to the front when there is none (Claude Code's walk from the end,
 * which holds attachments until it meets a tool result).
 */
function attachmentsMovedBack(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  let held: Piece[] = [];
  for (const piece of [...pieces].reverse()) {
    if (piece.kind === "attachment") {
      held.push(piece);
    } else {
      if (piece.kind === "tool_result") {
        out.push(...held);
        held = [];
      }
      out.push(piece);
    }
  }
  out.push(...held);
  return out.reverse();
}

/** Merges a message of its own: a text meeting a text gets `"\n"`. */
function pushMessage(blocks: Block[], block: Block): void {
  const last = blocks.at(-1);
  if (last?.type === "text" && block.type === "text") last.text += "\n";
  blocks.push(block);
}

/**
 * Merges an attachment: into a tool result that ends the blocks so far (as
 * Claude Code does, with JavaScript's `trim`), or as a text block of its own.
 */
function pushAttachment(blocks: Block[], text: string): void {
  const last = blocks.at(-1);
  if (last?.type === "tool_result") {
    if (typeof last.content === "string") {
      last.content = [last.content.trim(), text.trim()].filter((part) => part !== "").join("\n\n");
      return;
    }
    // A list takes the text in as a block of its own, after a newline on its
    // last text (recorded: r12_mcp_list_*), unless it holds a block Claude
    // Code keeps apart. A new list: the piece's stays as it was.
    if (!last.content.some(keptApart)) {
      const list = [...last.content];
      const end = list.at(-1);
      if (isText(end)) list[list.length - 1] = { ...end, text: `${end.text}\n` };
      last.content = [...list, { type: "text", text }];
      return;
    }
  }
  blocks.push({ type: "text", text });
}

/** A content block that is a text, with its `text`. */
function isText(block: Json | undefined): block is { type: "text"; text: string } & { [key: string]: Json } {
  return (
    typeof block === "object" &&
    block !== null &&
    !Array.isArray(block) &&
    block["type"] === "text" &&
    typeof block["text"] === "string"
  );
}

/**
 * A block that keeps Claude Code from folding anything into the list holding
 * it: a `tool_reference` or a `search_result`.
 */
function keptApart(block: Json): boolean {
  return (
    typeof block === "object" &&
    block !== null &&
    !Array.isArray(block) &&
    (block["type"] === "tool_reference" || block["type"] === "search_result")
  );
}
