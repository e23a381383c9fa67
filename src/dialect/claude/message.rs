//! One user message as Claude Code sends it to the model, built from
//! what a turn made: tool results, the texts of tool events' hooks, and
//! the texts Claude Code keeps as attachments.
//!
//! latch's claude `context` texts are Claude Code's, byte for byte, but a
//! text block of the message Claude Code sends may end with one more
//! `"\n"`, and a `PostToolBatch` text may sit inside a tool result instead
//! of in a block of its own. Both depend on the rest of the message, which
//! only the harness knows. A harness that builds Claude Code's request
//! itself gets the same blocks from [`user_message`]: it takes the pieces in
//! the order they were made and merges them as Claude Code 2.1.197 does
//! before each request (recorded: `r3_deny_slow_plus_context_fast`,
//! `r3_post_tool_batch_*`, `r10_seam_*`; the rule is in
//! `docs/dialects/claude.md`, "One user message"):
//!
//! - attachments move back to just after the last tool result made before
//!   them (or to the front);
//! - a piece that is a message of its own, when it starts with a text and
//!   the blocks so far end with a text, adds `"\n"` to that earlier text;
//! - an attachment never adds one: it is folded into a tool result that
//!   ends the blocks so far (`trimmed result` + blank line + `trimmed
//!   text`), or else becomes a text block;
//! - tool results always come first.
//!
//! A tool result's content is text ([`Piece::tool_result`], as Claude
//! Code's own tools give it) or a list of content blocks
//! ([`Piece::mcp_result`], as an MCP tool gives it: an attachment after
//! one is a text block of its own, recorded: `r12_mcp_list_*`).
//!
//! # Example
//!
//! Two Bash calls, a `PostToolUse` context on each, and a `PostToolBatch`
//! context (recorded: `r3_post_tool_batch_two_contexts`):
//!
//! ```
//! use latch::dialect::claude::message::{Block, Piece, user_message};
//!
//! let post = "<system-reminder>\nPostToolUse:Bash hook additional context: POST\n</system-reminder>";
//! let batch = "<system-reminder>\nPostToolBatch hook additional context: BATCH\n</system-reminder>";
//! let blocks = user_message([
//!     Piece::tool_result("toolu_1", "one"),
//!     Piece::Message(post.into()),
//!     Piece::tool_result("toolu_2", "two"),
//!     Piece::Message(post.into()),
//!     Piece::Attachment(batch.into()),
//! ]);
//! let text = |t: &str| Block::Text { text: t.to_owned() };
//! assert_eq!(
//!     blocks,
//!     [
//!         Block::tool_result("toolu_1", "one"),
//!         Block::tool_result("toolu_2", "two"),
//!         text(post),
//!         text(&format!("{batch}\n")),
//!         text(post),
//!     ]
//! );
//! ```

use serde::Serialize;

use serde_json::Value;

use crate::outcome::{Injection, Placement};

use super::text::js_trim;

/// What Claude Code merges into one user message, each piece as it was
/// made.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Piece {
    /// A tool's result, a message of its own.
    ToolResult {
        /// The `tool_use` block's id.
        tool_use_id: String,
        /// The result as the model reads it.
        content: Content,
        /// Whether the call failed or was denied; `None` leaves the key
        /// out, as Claude Code does for an MCP tool's result.
        is_error: Option<bool>,
    },
    /// A text that is a message of its own: the user's prompt, and what a
    /// tool event's hooks give the model (claude `context` placed
    /// `after_tool_result`).
    Message(String),
    /// A text Claude Code keeps as an attachment until the request:
    /// `PostToolBatch`, `UserPromptSubmit`, `UserPromptExpansion`,
    /// `SessionStart` and `SubagentStart` context, and the answers of
    /// `async` hooks (claude `context` placed anywhere else).
    Attachment(String),
}

impl Piece {
    /// A tool's text result that is not an error (`"is_error": false`, as
    /// Claude Code writes it for its own tools).
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<String>) -> Piece {
        Piece::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Content::Text(content.into()),
            is_error: Some(false),
        }
    }

    /// An MCP tool's result: its content blocks, and no `is_error` key.
    pub fn mcp_result(tool_use_id: impl Into<String>, blocks: Vec<Value>) -> Piece {
        Piece::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Content::Blocks(blocks),
            is_error: None,
        }
    }

    /// The piece a claude outcome's `context` entry is, or `None` for a
    /// text that is not part of a user message (`compaction_prompt`: the
    /// instructions of the compaction request).
    pub fn from_context(entry: &Injection) -> Option<Piece> {
        let text = entry.text.clone();
        match entry.placement {
            Placement::AfterToolResult => Some(Piece::Message(text)),
            Placement::WithPrompt | Placement::FirstUserMessage | Placement::AppendToToolResult => {
                Some(Piece::Attachment(text))
            }
            Placement::CompactionPrompt | Placement::SystemPrompt | Placement::AfterCompaction => {
                None
            }
        }
    }
}

/// A tool result's content.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Text.
    Text(String),
    /// Content blocks (an MCP tool's).
    Blocks(Vec<Value>),
}

/// A content block of the user message, serialized as the Messages API
/// reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Block {
    /// A tool's result, with any attachment folded into it.
    ToolResult {
        /// The `tool_use` block's id.
        tool_use_id: String,
        /// The result as the model reads it.
        content: Content,
        /// Whether the call failed or was denied; `None` leaves the key
        /// out, as Claude Code does for an MCP tool's result.
        #[serde(skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
    /// A text block.
    Text {
        /// The text.
        text: String,
    },
}

impl Block {
    /// A text tool result that is not an error.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<String>) -> Block {
        Block::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Content::Text(content.into()),
            is_error: Some(false),
        }
    }
}

/// The blocks of the user message Claude Code sends for `pieces`, given
/// in the order they were made: for each tool call its `PreToolUse`
/// texts, its result, its `PostToolUse` (or `PostToolUseFailure`) texts;
/// then the batch's `PostToolBatch` texts. On a turn's first message: the
/// `SessionStart` and `UserPromptSubmit` texts after the prompt.
pub fn user_message(pieces: impl IntoIterator<Item = Piece>) -> Vec<Block> {
    let mut blocks = Vec::new();
    for piece in attachments_moved_back(pieces.into_iter().collect()) {
        match piece {
            Piece::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => push_message(
                &mut blocks,
                Block::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                },
            ),
            Piece::Message(text) => push_message(&mut blocks, Block::Text { text }),
            Piece::Attachment(text) => push_attachment(&mut blocks, text),
        }
        // Stable: tool results first, everything else in its order.
        blocks.sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
    }
    blocks
}

/// Each attachment moved back to just after the last tool result made
/// before it, or to the front when there is none (Claude Code's walk from
/// the end, which holds attachments until it meets a message that starts
/// with a tool result).
fn attachments_moved_back(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out = Vec::with_capacity(pieces.len());
    let mut held = Vec::new();
    for piece in pieces.into_iter().rev() {
        match piece {
            Piece::Attachment(_) => held.push(piece),
            Piece::ToolResult { .. } => {
                out.append(&mut held);
                out.push(piece);
            }
            Piece::Message(_) => out.push(piece),
        }
    }
    out.append(&mut held);
    out.reverse();
    out
}

/// Merges a message of its own: a text meeting a text gets `"\n"`.
fn push_message(blocks: &mut Vec<Block>, block: Block) {
    if let (Some(Block::Text { text }), Block::Text { .. }) = (blocks.last_mut(), &block) {
        text.push('\n');
    }
    blocks.push(block);
}

/// Merges an attachment: into a text tool result that ends the blocks so
/// far, or as a text block; no newline either way.
fn push_attachment(blocks: &mut Vec<Block>, text: String) {
    if let Some(Block::ToolResult {
        content: Content::Text(content),
        ..
    }) = blocks.last_mut()
    {
        let folded: Vec<&str> = [js_trim(content), js_trim(&text)]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect();
        *content = folded.join("\n\n");
    } else {
        blocks.push(Block::Text { text });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Block {
        Block::Text { text: t.to_owned() }
    }

    /// r3_deny_slow_plus_context_fast: a denied call, then two
    /// `PreToolUse` contexts; all but the last get `"\n"`.
    #[test]
    fn texts_that_are_messages_end_with_a_newline_before_another() {
        let blocks = user_message([
            Piece::Message("B".into()),
            Piece::Message("A".into()),
            Piece::ToolResult {
                tool_use_id: "t".into(),
                content: Content::Text("DENY reason".into()),
                is_error: Some(true),
            },
        ]);
        assert_eq!(
            blocks,
            [
                Block::ToolResult {
                    tool_use_id: "t".into(),
                    content: Content::Text("DENY reason".into()),
                    is_error: Some(true)
                },
                text("B\n"),
                text("A"),
            ]
        );
    }

    /// r10_seam_single_post_ctx_batch: the batch text moves before the
    /// `PostToolUse` text and is folded into the result.
    #[test]
    fn an_attachment_right_after_a_result_is_folded_into_it() {
        let blocks = user_message([
            Piece::tool_result("t", "hi\n"),
            Piece::Message("POST".into()),
            Piece::Attachment("  BATCH\n".into()),
        ]);
        assert_eq!(
            blocks,
            [Block::tool_result("t", "hi\n\nBATCH"), text("POST")]
        );
    }

    /// r10_seam_single_pre_ctx_batch: a `PreToolUse` text already follows
    /// the result, so the batch text is a block, and neither gets `"\n"`.
    #[test]
    fn an_attachment_after_a_text_is_a_block_without_a_newline() {
        let blocks = user_message([
            Piece::Message("PRE".into()),
            Piece::tool_result("t", "hi"),
            Piece::Attachment("BATCH".into()),
        ]);
        assert_eq!(
            blocks,
            [Block::tool_result("t", "hi"), text("PRE"), text("BATCH")]
        );
    }

    /// A turn's first message: attachments go to the front, and the last
    /// of them gets `"\n"` from the prompt.
    #[test]
    fn attachments_without_a_result_go_first() {
        let blocks = user_message([
            Piece::Message("prompt".into()),
            Piece::Attachment("SessionStart".into()),
            Piece::Attachment("UserPromptSubmit".into()),
        ]);
        assert_eq!(
            blocks,
            [
                text("SessionStart"),
                text("UserPromptSubmit\n"),
                text("prompt")
            ]
        );
    }

    /// r12_mcp_list_batch_ctx, r12_mcp_list_post_and_batch: after an MCP
    /// tool's list of blocks, an attachment is a text block of its own,
    /// and the result keeps no `is_error` key.
    #[test]
    fn an_attachment_after_an_mcp_result_is_a_block_of_its_own() {
        let list = vec![serde_json::json!({"type": "text", "text": "MCP_RESULT"})];
        let blocks = user_message([
            Piece::mcp_result("t", list.clone()),
            Piece::Message("POST".into()),
            Piece::Attachment("BATCH".into()),
        ]);
        assert_eq!(
            serde_json::to_value(&blocks).expect("serializes"),
            serde_json::json!([
                {"type": "tool_result", "tool_use_id": "t", "content": list},
                {"type": "text", "text": "BATCH\n"},
                {"type": "text", "text": "POST"}
            ])
        );
    }

    #[test]
    fn an_empty_result_folds_to_the_text_alone() {
        let blocks = user_message([
            Piece::tool_result("t", " \n"),
            Piece::Attachment("X".into()),
        ]);
        assert_eq!(blocks, [Block::tool_result("t", "X")]);
    }

    #[test]
    fn context_entries_are_messages_attachments_or_not_in_the_message() {
        let entry = |placement| Injection {
            hook: "h".into(),
            placement,
            text: "t".into(),
        };
        let kind = |placement| Piece::from_context(&entry(placement));
        assert_eq!(
            kind(Placement::AfterToolResult),
            Some(Piece::Message("t".into()))
        );
        for attached in [
            Placement::WithPrompt,
            Placement::FirstUserMessage,
            Placement::AppendToToolResult,
        ] {
            assert_eq!(kind(attached), Some(Piece::Attachment("t".into())));
        }
        assert_eq!(kind(Placement::CompactionPrompt), None);
    }

    #[test]
    fn blocks_serialize_as_the_messages_api_reads_them() {
        let json = serde_json::to_value(user_message([
            Piece::tool_result("t", "one"),
            Piece::Message("ctx".into()),
        ]))
        .expect("serializes");
        assert_eq!(
            json,
            serde_json::json!([
                {"type": "tool_result", "tool_use_id": "t", "content": "one", "is_error": false},
                {"type": "text", "text": "ctx"}
            ])
        );
    }
}
