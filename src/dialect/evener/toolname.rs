//! Evener's tool-name translation: the engine's canonical names to the
//! Claude names hooks see and matchers are tested against.

use std::collections::HashMap;

/// The spec's table, canonical name → Claude name.
const DEFAULT_TABLE: [(&str, &str); 11] = [
    ("shell", "Bash"),
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("grep", "Grep"),
    ("glob", "Glob"),
    ("delegate", "Task"),
    ("web_fetch", "WebFetch"),
    ("web_search", "WebSearch"),
    ("notebook_edit", "NotebookEdit"),
    ("ask_user", "AskUserQuestion"),
];

/// The translation table. It is data, so a harness with more tools can
/// extend it; a name it does not list (an MCP `server__tool`, a tool
/// already named the Claude way) is passed through unchanged.
#[derive(Debug, Clone)]
pub struct ToolNames {
    table: HashMap<String, String>,
}

impl Default for ToolNames {
    fn default() -> Self {
        ToolNames {
            table: DEFAULT_TABLE
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect(),
        }
    }
}

impl ToolNames {
    /// Adds or replaces one translation.
    pub fn with(mut self, canonical: impl Into<String>, claude: impl Into<String>) -> Self {
        self.table.insert(canonical.into(), claude.into());
        self
    }

    /// This table with the tool names of a harness's vocabulary added
    /// (replacing same names). Evener's spec translates names only, so the
    /// vocabulary's argument shapes do not apply here.
    pub fn extended_by(mut self, vocabulary: &crate::vocabulary::Vocabulary) -> Self {
        for (harness, claude) in vocabulary.names() {
            self.table.insert(harness.to_owned(), claude.to_owned());
        }
        self
    }

    /// The Claude name for a canonical tool name.
    pub fn claude_name<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.table.get(canonical).map_or(canonical, String::as_str)
    }

    /// The canonical names the table knows, for diagnostics.
    pub fn canonical_names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter().map(|(a, b)| (a.as_str(), b.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_the_spec_table_and_passes_others_through() {
        let t = ToolNames::default();
        assert_eq!(t.claude_name("shell"), "Bash");
        assert_eq!(t.claude_name("ask_user"), "AskUserQuestion");
        assert_eq!(t.claude_name("memory__search"), "memory__search");
        assert_eq!(t.with("lint", "Lint").claude_name("lint"), "Lint");
    }

    #[test]
    fn the_spec_table_agrees_with_the_built_in_vocabulary() {
        let builtin = crate::vocabulary::Vocabulary::builtin();
        for (canonical, claude) in DEFAULT_TABLE {
            // Evener's spec keeps the sub-agent tool's former name; the
            // built-in vocabulary (the claude dialect's) has Claude Code's
            // name now, whose matchers take both.
            let claude = if canonical == "delegate" {
                "Agent"
            } else {
                claude
            };
            assert_eq!(builtin.claude_name(canonical), claude, "{canonical}");
        }
        let mine = crate::vocabulary::Vocabulary::empty().with(
            "run_tests",
            crate::vocabulary::ToolMap {
                claude: "Bash".to_owned(),
                ..crate::vocabulary::ToolMap::default()
            },
        );
        let t = ToolNames::default().extended_by(&mine);
        assert_eq!(t.claude_name("run_tests"), "Bash");
        assert_eq!(t.claude_name("read"), "read", "builtin extras stay out");
    }
}
