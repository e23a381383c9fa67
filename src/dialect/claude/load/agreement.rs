use super::*;

/// Every settings file of `recordings/claude-2.1.332/settings-cases.jsonl`
/// (made with `export_settings_cases.js` from Claude Code 2.1.332's own
/// reading of a settings file: its cleaning, whose "fatal" errors drop
/// the file, then its schema): latch keeps the file exactly when Claude
/// Code does, except the few that only Claude Code's refinements reject
/// (documented).
#[test]
fn files_are_kept_or_dropped_as_claude_code_does() {
    let mut disagree = Vec::new();
    let mut count = 0;
    for case in crate::dialect::claude::recorded_cases("claude-2.1.332/settings-cases.jsonl") {
        let input = case["input"].to_string();
        let accepted = case["accepted"] == true || case["refine_only"] == true;
        let (file, _) = load_text(
            &input,
            Path::new("/p/.claude/settings.json"),
            Scope::Project,
            None,
        );
        count += 1;
        if file.dropped == accepted {
            disagree.push(format!(
                "{input}: Claude Code {}: {}",
                if accepted { "keeps it" } else { "drops it" },
                case["issues"]
            ));
        }
    }
    assert_eq!(count, 5354);
    assert!(
        disagree.is_empty(),
        "{} of {count} disagree:\n{}",
        disagree.len(),
        disagree
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
