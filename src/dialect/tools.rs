//! The tools the dialects share, by neutral name, and what each dialect
//! calls them: one table for `latch convert` and the lint rules that catch
//! another product's tool name in a matcher.

/// One tool: its neutral name, then what poolside, evener and peen call
/// it (`None`: the dialect has no such tool).
pub type ToolRow = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

/// Neutral tool names and what each dialect calls them.
pub const TOOLS: [ToolRow; 7] = [
    ("shell", Some("shell"), Some("Bash"), Some("runCommand")),
    ("read", Some("read"), Some("Read"), Some("readFile")),
    ("write", Some("write"), Some("Write"), Some("writeFile")),
    ("edit", Some("edit"), Some("Edit"), Some("editFile")),
    ("remove", Some("remove"), None, Some("removePath")),
    ("web_fetch", Some("web_fetch"), Some("WebFetch"), None),
    ("web_search", Some("web_search"), Some("WebSearch"), None),
];

/// A dialect, for the tool table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// poolside.
    Poolside,
    /// evener.
    Evener,
    /// peen.
    Peen,
    /// claude (Claude Code's names, as evener's).
    Claude,
}

fn column(side: Side, row: &ToolRow) -> Option<&'static str> {
    match side {
        Side::Poolside => row.1,
        Side::Evener | Side::Claude => row.2,
        Side::Peen => row.3,
    }
}

/// A dialect's tool name in neutral terms (unknown names pass through).
pub fn to_neutral(side: Side, name: &str) -> String {
    TOOLS
        .iter()
        .find(|row| column(side, row) == Some(name))
        .map_or_else(|| name.to_owned(), |row| row.0.to_owned())
}

/// Whether `name` is another dialect's name for a tool `side` calls
/// something else (or does not have): such a matcher never matched in
/// `side` (evener's `shell`, poolside's `Bash`).
pub fn foreign_name(side: Side, name: &str) -> bool {
    TOOLS.iter().any(|row| {
        column(side, row) != Some(name)
            && [Side::Poolside, Side::Evener, Side::Peen]
                .iter()
                .any(|s| *s != side && column(*s, row) == Some(name))
    })
}

/// A neutral tool name in a dialect's terms: `Ok(name)`, or `Err(name)`
/// when the dialect has no such tool or the name is not in the table (kept
/// as is, and reported).
pub fn from_neutral(side: Side, name: &str) -> Result<String, String> {
    match TOOLS.iter().find(|row| row.0 == name) {
        Some(row) => column(side, row)
            .map(str::to_owned)
            .ok_or_else(|| name.to_owned()),
        None => Err(name.to_owned()),
    }
}

/// What `side` calls the tool that another dialect names `name` (`Bash`
/// → poolside's `shell`); `None` when `name` is no other dialect's tool
/// name, or `side` has no such tool.
pub fn translate(name: &str, side: Side) -> Option<&'static str> {
    TOOLS
        .iter()
        .find(|row| {
            [Side::Poolside, Side::Evener, Side::Peen]
                .iter()
                .any(|s| *s != side && column(*s, row) == Some(name))
        })
        .and_then(|row| column(side, row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_products_names_translate_to_poolside() {
        for (foreign, pool) in [
            ("Bash", "shell"),
            ("Read", "read"),
            ("Edit", "edit"),
            ("Write", "write"),
            ("WebFetch", "web_fetch"),
            ("WebSearch", "web_search"),
            ("runCommand", "shell"),
            ("readFile", "read"),
            ("writeFile", "write"),
            ("editFile", "edit"),
            ("removePath", "remove"),
        ] {
            assert_eq!(translate(foreign, Side::Poolside), Some(pool), "{foreign}");
        }
        assert_eq!(translate("shell", Side::Poolside), None, "its own name");
        assert_eq!(translate("shell", Side::Evener), Some("Bash"));
        assert_eq!(translate("removePath", Side::Evener), None, "no such tool");
        assert_eq!(translate("mcp__x__y", Side::Peen), None);
    }
}
