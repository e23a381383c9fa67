//! Peen's hook events: lifecycle events, the generic tool events, and the
//! per-file-tool events, with the order they fire in for one tool call.

use std::fmt;

use serde_json::Value;

use crate::event::{Event, EventKind};
use crate::run::Cancel;
use crate::session::Session;

/// The file tools that have events of their own, with their event names'
/// stem (`readFile` → `preReadFile`, `postReadFile`, `readFileFailure`).
pub const FILE_TOOLS: [&str; 9] = [
    "readFile",
    "listFiles",
    "searchText",
    "writeFile",
    "editFile",
    "applyPatch",
    "movePath",
    "removePath",
    "makeDirectory",
];

/// The lifecycle events.
pub const LIFECYCLE: [&str; 8] = [
    "preUserMessage",
    "sessionStart",
    "postUserMessage",
    "turnStart",
    "turnStop",
    "turnCancelled",
    "preCompact",
    "postCompact",
];

/// The phase of a tool call an event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the tool runs.
    Pre,
    /// After it succeeded.
    Post,
    /// After it failed.
    Failure,
}

/// One peen hook event.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PeenEvent {
    /// A lifecycle event, by name.
    Lifecycle(&'static str),
    /// `preToolUse`, `postToolUse` or `toolUseFailure`.
    Tool(Phase),
    /// A file tool's own event, such as `preWriteFile`.
    FileTool(Phase, &'static str),
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl PeenEvent {
    /// The event's name as written in `hooks.yaml`.
    pub fn name(&self) -> String {
        match self {
            PeenEvent::Lifecycle(n) => (*n).to_owned(),
            PeenEvent::Tool(Phase::Pre) => "preToolUse".to_owned(),
            PeenEvent::Tool(Phase::Post) => "postToolUse".to_owned(),
            PeenEvent::Tool(Phase::Failure) => "toolUseFailure".to_owned(),
            PeenEvent::FileTool(Phase::Pre, t) => format!("pre{}", capitalized(t)),
            PeenEvent::FileTool(Phase::Post, t) => format!("post{}", capitalized(t)),
            PeenEvent::FileTool(Phase::Failure, t) => format!("{t}Failure"),
        }
    }

    /// Every event name peen knows.
    pub fn all() -> Vec<PeenEvent> {
        let mut out: Vec<PeenEvent> = LIFECYCLE.iter().map(|n| PeenEvent::Lifecycle(n)).collect();
        for p in [Phase::Pre, Phase::Post, Phase::Failure] {
            out.push(PeenEvent::Tool(p));
            for t in FILE_TOOLS {
                out.push(PeenEvent::FileTool(p, t));
            }
        }
        out
    }

    /// Parses an event name.
    pub fn from_name(name: &str) -> Option<PeenEvent> {
        PeenEvent::all().into_iter().find(|e| e.name() == name)
    }

    /// Whether this is a tool event (generic or per-file).
    pub fn is_tool(&self) -> bool {
        !matches!(self, PeenEvent::Lifecycle(_))
    }

    /// The neutral event that fires this one (with compaction summarized),
    /// worked out from [`PeenEvent::fired_by`] so the two never disagree.
    pub fn kind(&self) -> Option<EventKind> {
        match self {
            PeenEvent::Tool(phase) | PeenEvent::FileTool(phase, _) => Some(match phase {
                Phase::Pre => EventKind::ToolBefore,
                Phase::Post => EventKind::ToolAfter,
                Phase::Failure => EventKind::ToolFailure,
            }),
            PeenEvent::Lifecycle(_) => EventKind::ALL
                .into_iter()
                .find(|k| PeenEvent::fired_by(&Event::new(*k), true).contains(self)),
        }
    }

    /// The events a neutral event fires, in order. Compaction events fire
    /// only when `summarize` is set (`PEEN_COMPACTION_MODE=summarize`) and
    /// the round is not under budget; `sessionStart` only
    /// when `source` is `startup`, or absent (whether the session already
    /// had turns is a question for its state: see `select`).
    pub fn fired_by(event: &Event, summarize: bool) -> Vec<PeenEvent> {
        let file_tool = event
            .tool_name()
            .and_then(|n| FILE_TOOLS.iter().find(|t| **t == n).copied());
        let tool = |first: PeenEvent, own: Option<PeenEvent>, last: Option<PeenEvent>| {
            let mut v = vec![first];
            v.extend(own);
            v.extend(last);
            v
        };
        match event.event {
            EventKind::UserPrompt => vec![PeenEvent::Lifecycle("preUserMessage")],
            EventKind::SessionStart => match event.source.as_deref() {
                None | Some("startup") => vec![PeenEvent::Lifecycle("sessionStart")],
                Some(_) => Vec::new(),
            },
            EventKind::UserPromptReady => vec![PeenEvent::Lifecycle("postUserMessage")],
            EventKind::TurnStart => vec![PeenEvent::Lifecycle("turnStart")],
            EventKind::Stop => vec![PeenEvent::Lifecycle("turnStop")],
            EventKind::TurnCancelled => vec![PeenEvent::Lifecycle("turnCancelled")],
            EventKind::CompactBefore | EventKind::CompactAfter if under_budget(event).is_some() => {
                Vec::new()
            }
            EventKind::CompactBefore if summarize => vec![PeenEvent::Lifecycle("preCompact")],
            EventKind::CompactAfter if summarize => vec![PeenEvent::Lifecycle("postCompact")],
            EventKind::ToolBefore => tool(
                PeenEvent::Tool(Phase::Pre),
                file_tool.map(|t| PeenEvent::FileTool(Phase::Pre, t)),
                None,
            ),
            EventKind::ToolAfter => {
                let mut v: Vec<PeenEvent> = file_tool
                    .map(|t| PeenEvent::FileTool(Phase::Post, t))
                    .into_iter()
                    .collect();
                v.push(PeenEvent::Tool(Phase::Post));
                v
            }
            EventKind::ToolFailure => tool(
                PeenEvent::Tool(Phase::Failure),
                file_tool.map(|t| PeenEvent::FileTool(Phase::Failure, t)),
                Some(PeenEvent::Tool(Phase::Post)),
            ),
            _ => Vec::new(),
        }
    }

    /// Whether a failed action counts as a deny by default: events whose
    /// name starts with `pre`, `sessionStart` and `turnStart`.
    pub fn fails_closed(&self) -> bool {
        let n = self.name();
        n.starts_with("pre") || n == "sessionStart" || n == "turnStart"
    }

    /// Whether injected text reaches the model on this event, and where.
    pub fn injects(&self) -> bool {
        !matches!(
            self,
            PeenEvent::Lifecycle("turnStop" | "turnCancelled" | "preCompact" | "postCompact")
        )
    }

    /// Whether this event belongs to the opening or compaction checkpoints
    /// that the restart journal keeps.
    pub fn journaled(&self) -> bool {
        matches!(
            self,
            PeenEvent::Lifecycle(
                "preUserMessage"
                    | "sessionStart"
                    | "postUserMessage"
                    | "turnStart"
                    | "preCompact"
                    | "postCompact"
            )
        )
    }
}

/// The estimated and budget tokens of a compaction event whose figures show
/// the round under budget (the estimate at most the budget). Peen runs
/// neither compaction hook for such a round. Without both figures the
/// round counts as over budget, as a harness sends compaction events only
/// when it compacts.
pub fn under_budget(event: &Event) -> Option<(u64, u64)> {
    if !matches!(
        event.event,
        EventKind::CompactBefore | EventKind::CompactAfter
    ) {
        return None;
    }
    let c = event.compaction.as_ref()?;
    let (estimated, budget) = (c.estimated_tokens?, c.budget_tokens?);
    (estimated <= budget).then_some((estimated, budget))
}

/// The session-state key that records a session's first turn: the turn's
/// id as a string, or `true` when the turn had no id.
pub const FIRST_TURN_KEY: &str = "peen.first_turn";

/// The peen events `event` fires in `session`, with warnings for the
/// outcome. On top of [`PeenEvent::fired_by`], `sessionStart` runs only on
/// the first turn a session ever runs: every event of a turn (all but
/// `user_prompt`, whose `preUserMessage` comes before `sessionStart`)
/// records the session's first turn in its state, and a `session_start`
/// of a later turn fires nothing. A `session_start` of the recorded turn
/// itself (a retry) still fires, and the restart journal reuses its
/// result. `handled` says whether any group handles an event; warnings
/// are given only for events some group handles. `turn` is the event's
/// turn (its `turn_id`, `request_id` or `id`).
pub async fn select(
    event: &Event,
    summarize: bool,
    session: &Session,
    cancel: &Cancel,
    turn: Option<&str>,
    handled: impl Fn(&PeenEvent) -> bool,
) -> (Vec<PeenEvent>, Vec<String>) {
    let mut warnings = Vec::new();
    let compaction = [
        PeenEvent::Lifecycle("preCompact"),
        PeenEvent::Lifecycle("postCompact"),
    ];
    if summarize
        && let Some((estimated, budget)) = under_budget(event)
        && compaction.iter().any(&handled)
    {
        let round = event
            .compaction
            .as_ref()
            .and_then(|c| c.round)
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        warnings.push(format!(
            "peen: compaction round{round} is under budget ({estimated} estimated tokens, budget {budget}); neither preCompact nor postCompact runs"
        ));
    }
    let mut events = PeenEvent::fired_by(event, summarize);
    if events.is_empty() || event.event == EventKind::UserPrompt || session.id().is_none() {
        return (events, warnings);
    }
    let this_turn = || turn.map_or(Value::Bool(true), |t| Value::String(t.to_owned()));
    let first = match session.snapshot(cancel).await {
        Ok(state) => state.values.get(FIRST_TURN_KEY).cloned(),
        Err(e) => {
            if events.iter().any(&handled) {
                warnings.push(format!(
                    "peen: cannot read the session state to tell whether this is the session's first turn: {e}"
                ));
            }
            return (events, warnings);
        }
    };
    match first {
        None => {
            if let Err(e) = session
                .update(cancel, |s| {
                    s.values
                        .entry(FIRST_TURN_KEY.to_owned())
                        .or_insert_with(this_turn);
                })
                .await
                && events.iter().any(&handled)
            {
                warnings.push(format!(
                    "peen: cannot record the session's first turn in its state: {e}"
                ));
            }
        }
        Some(first) if event.event == EventKind::SessionStart => {
            let same_turn = matches!((&first, turn), (Value::String(f), Some(t)) if f == t);
            if !same_turn {
                let start = PeenEvent::Lifecycle("sessionStart");
                if handled(&start) {
                    let which = match &first {
                        Value::String(t) => format!(" (first turn `{t}`)"),
                        _ => String::new(),
                    };
                    warnings.push(format!(
                        "peen: sessionStart did not run: it runs only on the first turn a session ever runs, and session `{}` already had turns{which}",
                        session.id().unwrap_or_default()
                    ));
                }
                events.retain(|e| *e != start);
            }
        }
        Some(_) => {}
    }
    (events, warnings)
}

impl fmt::Display for PeenEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lifecycle_event_has_the_kind_that_fires_it() {
        let kinds: Vec<Option<EventKind>> = LIFECYCLE
            .iter()
            .map(|n| PeenEvent::Lifecycle(n).kind())
            .collect();
        assert_eq!(
            kinds,
            [
                EventKind::UserPrompt,
                EventKind::SessionStart,
                EventKind::UserPromptReady,
                EventKind::TurnStart,
                EventKind::Stop,
                EventKind::TurnCancelled,
                EventKind::CompactBefore,
                EventKind::CompactAfter,
            ]
            .map(Some)
        );
        assert_eq!(
            PeenEvent::FileTool(Phase::Failure, "readFile").kind(),
            Some(EventKind::ToolFailure)
        );
    }

    #[test]
    fn names_round_trip() {
        for e in PeenEvent::all() {
            assert_eq!(PeenEvent::from_name(&e.name()), Some(e.clone()));
        }
        assert_eq!(
            PeenEvent::FileTool(Phase::Failure, "readFile").name(),
            "readFileFailure"
        );
        assert_eq!(
            PeenEvent::FileTool(Phase::Pre, "makeDirectory").name(),
            "preMakeDirectory"
        );
        assert_eq!(PeenEvent::all().len(), 8 + 3 * 10);
    }

    #[test]
    fn tool_calls_fire_in_the_documented_order() {
        let names = |kind: EventKind, tool: &str| {
            let mut e = Event::tool_before(tool, serde_json::json!({}));
            e.event = kind;
            PeenEvent::fired_by(&e, false)
                .iter()
                .map(PeenEvent::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(EventKind::ToolBefore, "writeFile"),
            ["preToolUse", "preWriteFile"]
        );
        assert_eq!(
            names(EventKind::ToolAfter, "writeFile"),
            ["postWriteFile", "postToolUse"]
        );
        assert_eq!(
            names(EventKind::ToolFailure, "writeFile"),
            ["toolUseFailure", "writeFileFailure", "postToolUse"]
        );
        assert_eq!(names(EventKind::ToolBefore, "runCommand"), ["preToolUse"]);
    }
}
