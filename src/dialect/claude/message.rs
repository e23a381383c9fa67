//! One user message as Claude Code sends it to the model, built from
//! what a turn made: tool results, the texts of tool events' hooks, and
//! the texts Claude Code keeps as attachments.
//!
//! latch's claude `context` texts are Claude Code's, byte for byte, but
//! Claude Code folds most of them into a tool result instead of sending
//! them as blocks of their own, and a text block may end with one more
//! `"\n"`. Both depend on the rest of the message, which only the harness
//! knows. A harness that builds Claude Code's request itself gets the same
//! blocks from [`user_message`]: it takes the pieces in the order they were
//! made and merges them as Claude Code 2.1.332 does before each request
//! (recorded: `r3_post_tool_batch_*`, `r10_seam_*`, `r12_mcp_list_*`,
//! `r13_block_noreason_post`; the rule is in `docs/dialects/claude.md`,
//! "One user message"):
//!
//! - attachments move back to just after the last tool result made before
//!   them (or to the front);
//! - a piece that is a message of its own, when it starts with a text and
//!   the blocks so far end with a text, adds `"\n"` to that earlier text;
//! - an attachment never adds one: it is folded into a tool result that
//!   ends the blocks so far (text: `trimmed result` + blank line +
//!   `trimmed text`; an MCP tool's list: its last text block gets `"\n"`
//!   and the text joins the list as a block), or else becomes a text
//!   block;
//! - tool results always come first.
//!
//! Every hook text of a tool event is an attachment (*2.1.332*; 2.1.197
//! sent `PreToolUse`, `PostToolUse` and `PostToolUseFailure` texts as
//! messages of their own, and never folded anything into a list): so a
//! `PostToolUse` text lands in its own call's result, and the batch's
//! `PostToolBatch` texts after it.
//!
//! A tool result's content is text ([`Piece::tool_result`], as Claude
//! Code's own tools give it) or a list of content blocks
//! ([`Piece::mcp_result`], as an MCP tool gives it).
//!
//! # Example
//!
//! Two Bash calls, a `PostToolUse` context on each, and a `PostToolBatch`
//! context (recorded: `r3_post_tool_batch_two_contexts`, with two batch
//! contexts):
//!
//! ```
//! use latch::dialect::claude::message::{Block, Piece, user_message};
//!
//! let post = "<system-reminder>\nPostToolUse:Bash hook additional context: POST\n</system-reminder>";
//! let batch = "<system-reminder>\nPostToolBatch hook additional context: BATCH\n</system-reminder>";
//! let blocks = user_message([
//!     Piece::tool_result("toolu_1", "one"),
//!     Piece::Attachment(post.into()),
//!     Piece::tool_result("toolu_2", "two"),
//!     Piece::Attachment(post.into()),
//!     Piece::Attachment(batch.into()),
//! ]);
//! assert_eq!(
//!     blocks,
//!     [
//!         Block::tool_result("toolu_1", format!("one\n\n{post}")),
//!         Block::tool_result("toolu_2", format!("two\n\n{post}\n\n{batch}")),
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
    /// A text that is a message of its own: the user's prompt, and the
    /// reminder after a result a `PermissionDenied` hook lets the model
    /// retry.
    Message(String),
    /// A text Claude Code keeps as an attachment until the request: what
    /// a tool event's hooks give the model (`PreToolUse`, `PostToolUse`
    /// and `PostToolUseFailure` context and blocking errors,
    /// `PostToolBatch` context), the answers of `async` hooks, and
    /// `UserPromptSubmit`, `UserPromptExpansion`, `SessionStart` and
    /// `SubagentStart` context.
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
    /// instructions of the compaction request). Every entry is an
    /// attachment but one marked [`Injection::own_message`]: the
    /// `PermissionDenied` retry reminder, which Claude Code sends as a
    /// message of its own (recorded: `r3_permission_denied_retry`).
    pub fn from_context(entry: &Injection) -> Option<Piece> {
        let text = entry.text.clone();
        match entry.placement {
            Placement::AfterToolResult if entry.own_message => Some(Piece::Message(text)),
            Placement::AfterToolResult
            | Placement::WithPrompt
            | Placement::FirstUserMessage
            | Placement::AppendToToolResult => Some(Piece::Attachment(text)),
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
/// texts, its result, its `PostToolUse` (or `PostToolUseFailure`) texts
/// (or, for a call a `PermissionDenied` hook lets the model retry, the
/// retry reminder); then the batch's `PostToolBatch` texts. On a turn's
/// first message: the `SessionStart` and `UserPromptSubmit` texts after
/// the prompt.
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

/// Merges an attachment: into a tool result that ends the blocks so far,
/// or as a text block of its own.
fn push_attachment(blocks: &mut Vec<Block>, text: String) {
    match blocks.last_mut() {
        Some(Block::ToolResult {
            content: Content::Text(content),
            ..
        }) => {
            let folded: Vec<&str> = [js_trim(content), js_trim(&text)]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect();
            *content = folded.join("\n\n");
        }
        // A list takes the text in as a block of its own, after a newline
        // on its last text (2.1.332, recorded: `r12_mcp_list_*`), unless
        // it holds a block Claude Code keeps apart.
        Some(Block::ToolResult {
            content: Content::Blocks(list),
            ..
        }) if !list.iter().any(kept_apart) => {
            if let Some(last) = list.last_mut()
                && last["type"] == "text"
                && let Some(Value::String(t)) = last.get_mut("text")
            {
                t.push('\n');
            }
            list.push(serde_json::json!({"type": "text", "text": text}));
        }
        _ => blocks.push(Block::Text { text }),
    }
}

/// A block that keeps Claude Code from folding anything into the list
/// holding it: a `tool_reference` or a `search_result` (read from its
/// code).
fn kept_apart(block: &Value) -> bool {
    matches!(
        block["type"].as_str(),
        Some("tool_reference" | "search_result")
    )
}

#[cfg(test)]
mod tests {
    use super::super::text::{RETRY, reminder};
    use super::*;

    fn text(t: &str) -> Block {
        Block::Text { text: t.to_owned() }
    }

    fn att(t: &str) -> Piece {
        Piece::Attachment(t.to_owned())
    }

    /// r3_deny_slow_plus_context_fast: a denied call's two `PreToolUse`
    /// contexts, made before its result, follow it with no newline.
    #[test]
    fn texts_made_before_the_result_follow_it_as_they_are() {
        let blocks = user_message([
            att("B"),
            att("A"),
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
                text("B"),
                text("A"),
            ]
        );
    }

    /// r10_seam_single_post_ctx_batch: the `PostToolUse` text, then the
    /// batch text, folded into the result, each trimmed.
    #[test]
    fn attachments_right_after_a_result_are_folded_into_it() {
        let blocks = user_message([
            Piece::tool_result("t", "hi\n"),
            att("POST"),
            att("  BATCH\n"),
        ]);
        assert_eq!(blocks, [Block::tool_result("t", "hi\n\nPOST\n\nBATCH")]);
    }

    /// r10_seam_two_pre_post_batch: after a `PreToolUse` text nothing is
    /// folded, and no text ends with a newline:
    /// `[TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH]`.
    #[test]
    fn after_a_text_attachments_are_blocks_without_a_newline() {
        let blocks = user_message([
            att("PRE1"),
            Piece::tool_result("t1", "one"),
            att("POST1"),
            att("PRE2"),
            Piece::tool_result("t2", "two"),
            att("POST2"),
            att("BATCH"),
        ]);
        assert_eq!(
            blocks,
            [
                Block::tool_result("t1", "one"),
                Block::tool_result("t2", "two"),
                text("PRE1"),
                text("POST1"),
                text("PRE2"),
                text("POST2"),
                text("BATCH"),
            ]
        );
    }

    /// A turn's first message: attachments go to the front, and the last
    /// of them gets `"\n"` from the prompt, a message.
    #[test]
    fn attachments_without_a_result_go_first() {
        let blocks = user_message([
            Piece::Message("prompt".into()),
            att("SessionStart"),
            att("UserPromptSubmit"),
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

    /// r3_permission_denied_retry: the retry reminder is a message, a
    /// block of its own after the denied result; after a text it ends that
    /// text with `"\n"`, as any message does (read from Claude Code's
    /// code).
    #[test]
    fn a_message_after_a_result_is_a_block_of_its_own() {
        let denied = Piece::ToolResult {
            tool_use_id: "t".into(),
            content: Content::Text("denied".into()),
            is_error: Some(true),
        };
        let blocks = user_message([denied.clone(), Piece::Message("RETRY".into())]);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1], text("RETRY"));
        let blocks = user_message([att("PRE"), denied, Piece::Message("RETRY".into())]);
        assert_eq!(&blocks[1..], [text("PRE\n"), text("RETRY")]);
    }

    /// r12_mcp_list_post_and_batch: each text joins an MCP tool's list as
    /// a block, after a newline on the list's last text; the result keeps
    /// no `is_error` key.
    #[test]
    fn attachments_after_an_mcp_result_join_its_list() {
        let list = vec![serde_json::json!({"type": "text", "text": "MCP_RESULT"})];
        let blocks = user_message([Piece::mcp_result("t", list), att("POST"), att("BATCH")]);
        assert_eq!(
            serde_json::to_value(&blocks).expect("serializes"),
            serde_json::json!([
                {"type": "tool_result", "tool_use_id": "t", "content": [
                    {"type": "text", "text": "MCP_RESULT\n"},
                    {"type": "text", "text": "POST\n"},
                    {"type": "text", "text": "BATCH"}
                ]}
            ])
        );
    }

    /// Read from Claude Code's code: after an image the text joins the
    /// list with no newline; a list holding a `tool_reference` or a
    /// `search_result` takes nothing in.
    #[test]
    fn a_list_takes_texts_in_unless_it_holds_a_block_kept_apart() {
        let image = serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}});
        let blocks = user_message([Piece::mcp_result("t", vec![image.clone()]), att("X")]);
        assert_eq!(
            blocks,
            [Block::ToolResult {
                tool_use_id: "t".into(),
                content: Content::Blocks(vec![
                    image,
                    serde_json::json!({"type": "text", "text": "X"})
                ]),
                is_error: None
            }]
        );
        for kind in ["tool_reference", "search_result"] {
            let list = vec![
                serde_json::json!({"type": kind}),
                serde_json::json!({"type": "text", "text": "R"}),
            ];
            let blocks = user_message([Piece::mcp_result("t", list.clone()), att("X")]);
            assert_eq!(
                blocks,
                [
                    Block::ToolResult {
                        tool_use_id: "t".into(),
                        content: Content::Blocks(list),
                        is_error: None
                    },
                    text("X")
                ],
                "{kind}"
            );
        }
    }

    #[test]
    fn an_empty_result_folds_to_the_text_alone() {
        let blocks = user_message([Piece::tool_result("t", " \n"), att("X")]);
        assert_eq!(blocks, [Block::tool_result("t", "X")]);
    }

    #[test]
    fn context_entries_are_attachments_but_the_retry_reminder() {
        let entry = |placement, text: &str| Injection {
            hook: "h".into(),
            placement,
            text: text.into(),
            own_message: false,
        };
        let kind = |placement| Piece::from_context(&entry(placement, "t"));
        for attached in [
            Placement::AfterToolResult,
            Placement::WithPrompt,
            Placement::FirstUserMessage,
            Placement::AppendToToolResult,
        ] {
            assert_eq!(kind(attached), Some(Piece::Attachment("t".into())));
        }
        for outside in [
            Placement::CompactionPrompt,
            Placement::SystemPrompt,
            Placement::AfterCompaction,
        ] {
            assert_eq!(kind(outside), None);
        }
        // The mark makes a message, not the text: the reminder's words
        // without it stay an attachment.
        let retry = reminder(RETRY);
        let own = Injection {
            own_message: true,
            ..entry(Placement::AfterToolResult, &retry)
        };
        assert_eq!(
            Piece::from_context(&own),
            Some(Piece::Message(retry.clone()))
        );
        assert_eq!(
            Piece::from_context(&entry(Placement::AfterToolResult, &retry)),
            Some(Piece::Attachment(retry))
        );
    }

    #[test]
    fn blocks_serialize_as_the_messages_api_reads_them() {
        let json = serde_json::to_value(user_message([att("pre"), Piece::tool_result("t", "one")]))
            .expect("serializes");
        assert_eq!(
            json,
            serde_json::json!([
                {"type": "tool_result", "tool_use_id": "t", "content": "one", "is_error": false},
                {"type": "text", "text": "pre"}
            ])
        );
    }
}
