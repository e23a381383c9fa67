//! Every matcher of the recorded cases, with the recording's answer.

use super::*;

fn parse(m: Option<&str>) -> ClaudeMatcher {
    ClaudeMatcher::parse(m, &mut PatternBudget::per_file()).unwrap_or_else(|e| panic!("{m:?}: {e}"))
}

/// Checks each matcher one by one and folded in an index, for a target.
fn check(case: &str, target: &str, fired: &[Option<&str>], not_fired: &[Option<&str>]) {
    let all: Vec<Option<&str>> = fired.iter().chain(not_fired).copied().collect();
    let ms: Vec<ClaudeMatcher> = all.iter().map(|m| parse(*m)).collect();
    for (m, text) in ms.iter().zip(&all) {
        let want = fired.contains(text);
        assert_eq!(
            m.is_match_tool(target),
            want,
            "{case}: matcher {text:?} on {target:?} ({})",
            m.describe()
        );
    }
    let index = ClaudeIndex::build(ms.iter().enumerate());
    let want: Vec<usize> = (0..fired.len()).collect();
    assert_eq!(
        index.select_tool(target, &mut Vec::new()),
        want,
        "{case}: index on {target:?}"
    );
}

/// Case `l_matchers` (Claude Code 2.1.197): the matcher forms on
/// `PreToolUse`, for the Bash tool.
#[test]
fn l_matchers_bash() {
    check(
        "l_matchers",
        "Bash",
        &[
            Some("Bash"),
            Some("Ba.*"),
            Some("^Bash$"),
            Some("a.h"),
            Some("B.sh"),
            Some("Bash|Write"),
            Some("Bash,Write"),
            Some("Bash | Write"),
            Some(" Bash "),
            Some("*"),
            Some(""),
            None,
        ],
        &[Some("bash"), Some("Bas"), Some("Edit|Write"), Some("Write")],
    );
}

/// Case `l_matchers`: the same matchers, for the Write tool.
#[test]
fn l_matchers_write() {
    check(
        "l_matchers",
        "Write",
        &[
            Some("Edit|Write"),
            Some("Write"),
            Some("Bash|Write"),
            Some("Bash,Write"),
            Some("Bash | Write"),
            Some("*"),
            Some(""),
            None,
        ],
        &[
            Some("Bash"),
            Some("Ba.*"),
            Some("^Bash$"),
            Some("a.h"),
            Some("B.sh"),
            Some(" Bash "),
            Some("bash"),
            Some("Bas"),
        ],
    );
}

#[test]
fn l_matchers_classification() {
    // `Bas` is a word, so an exact name (not a prefix); `a.h` a regex.
    assert!(matches!(parse(Some("Bas")), ClaudeMatcher::Names(n) if n == ["Bas"]));
    assert!(matches!(parse(Some(" Bash ")), ClaudeMatcher::Names(n) if n == ["Bash"]));
    assert!(
        matches!(parse(Some("Bash | Write")), ClaudeMatcher::Names(n) if n == ["Bash", "Write"])
    );
    assert!(matches!(parse(Some("a.h")), ClaudeMatcher::Regex(_)));
    assert!(matches!(parse(Some("*")), ClaudeMatcher::Any));
    assert!(matches!(parse(Some("")), ClaudeMatcher::Any));
    assert!(matches!(parse(None), ClaudeMatcher::Any));
}

const MCP_MATCHERS: [&str; 13] = [
    "mcp__srv__echo_tool",
    "mcp__srv",
    "mcp__srv__.*",
    "mcp__.*",
    "mcp__my-srv__do-thing",
    "mcp__my-srv__.*",
    "do-thing",
    "my-srv",
    "echo_tool",
    "mcp__srv__echo_tool|Bash",
    "mcp__my-srv__do-thing|Bash",
    "mcp__.*__do-thing",
    "srv",
];

fn mcp(fired: &[&str]) -> (Vec<Option<&'static str>>, Vec<Option<&'static str>>) {
    let mut yes: Vec<Option<&str>> = MCP_MATCHERS
        .iter()
        .filter(|m| fired.contains(m))
        .map(|m| Some(*m))
        .collect();
    yes.push(Some("*"));
    let no = MCP_MATCHERS
        .iter()
        .filter(|m| !fired.contains(m))
        .map(|m| Some(*m))
        .collect();
    (yes, no)
}

/// Case `r2_mcp_matchers`: `mcp__srv__echo_tool`.
#[test]
fn r2_mcp_matchers_echo_tool() {
    let (yes, no) = mcp(&[
        "mcp__srv__echo_tool",
        "mcp__srv__.*",
        "mcp__.*",
        "mcp__srv__echo_tool|Bash",
    ]);
    check("r2_mcp_matchers", "mcp__srv__echo_tool", &yes, &no);
}

/// Case `r2_mcp_matchers`: `mcp__my-srv__do-thing` (hyphens are word
/// characters: its exact name is a name, not a regex).
#[test]
fn r2_mcp_matchers_do_thing() {
    let (yes, no) = mcp(&[
        "mcp__my-srv__do-thing",
        "mcp__my-srv__.*",
        "mcp__.*",
        "mcp__my-srv__do-thing|Bash",
        "mcp__.*__do-thing",
    ]);
    check("r2_mcp_matchers", "mcp__my-srv__do-thing", &yes, &no);
    assert!(matches!(
        parse(Some("mcp__my-srv__do-thing")),
        ClaudeMatcher::Names(_)
    ));
}

/// Case `r2_mcp_matchers`: the warning for `mcp__srv`, word for word from
/// the debug log, and none for the other matchers.
#[test]
fn r2_mcp_matchers_warning() {
    assert_eq!(
        parse(Some("mcp__srv")).warnings(),
        vec![
            "Hook matcher `mcp__srv` matches no tool (it is compared as an exact string). To match all tools from this server, use `mcp__srv__.*`. See CHANGELOG v2.1.195."
                .to_owned()
        ]
    );
    for m in MCP_MATCHERS.iter().filter(|m| **m != "mcp__srv") {
        assert!(parse(Some(m)).warnings().is_empty(), "{m}");
    }
    assert_eq!(mcp_server_advice("mcp__"), None);
    assert!(mcp_server_advice("mcp__plugin_x_srv").is_some());
}

/// Case `r2_subagent`: `PreToolUse` matcher `Task` still matches the Agent
/// tool, as `Agent` and `*` do.
#[test]
fn r2_subagent_task_matches_agent() {
    check(
        "r2_subagent",
        "Agent",
        &[Some("*"), Some("Task"), Some("Agent")],
        &[Some("Bash")],
    );
    // Not a plain name match: `Task` is the Agent tool's former name.
    assert!(!parse(Some("Task")).is_match("Agent"));
}

/// Case `r2_subagent`: `SubagentStart`/`SubagentStop` matchers on the agent
/// type: `general-purpose` (a word, with its hyphen) fired, `Explore` not.
#[test]
fn r2_subagent_agent_type() {
    for (m, want) in [
        (Some("general-purpose"), true),
        (Some("Explore"), false),
        (None, true),
    ] {
        let m = parse(m);
        assert_eq!(m.is_match("general-purpose"), want, "{}", m.describe());
    }
    let ms = [
        parse(Some("general-purpose")),
        parse(Some("Explore")),
        parse(None),
    ];
    assert_eq!(
        ClaudeIndex::build(ms.iter().enumerate()).select("general-purpose", &mut Vec::new()),
        vec![0, 2]
    );
}

#[test]
fn unrecorded_choices() {
    // Separators only: an empty list, matching nothing.
    assert!(!parse(Some("|")).is_match("Bash"));
    assert!(!parse(Some(" ")).is_match("Bash"));
    // A tab is not a separator: the matcher is a regex.
    assert!(matches!(parse(Some("Bash\t")), ClaudeMatcher::Regex(_)));
    // A plugin agent type needs a regex (`:` is not a word character).
    assert!(parse(Some("^my-plugin:reviewer$")).is_match("my-plugin:reviewer"));
    // A regex is tried on the former name too.
    assert!(parse(Some("^Task$")).is_match_tool("Agent"));
}

#[test]
fn narrow_word_set() {
    let mut b = PatternBudget::per_file();
    let m = ClaudeMatcher::parse_with(Some("rate_limit|server_error"), WordSet::Narrow, &mut b)
        .expect("valid");
    assert!(matches!(&m, ClaudeMatcher::Names(n) if n.len() == 2));
    // A comma is no separator there: `a,b` is a regex.
    let m = ClaudeMatcher::parse_with(Some("a,b"), WordSet::Narrow, &mut b).expect("valid");
    assert!(matches!(m, ClaudeMatcher::Regex(_)));
    assert!(m.is_match("xa,by"));
}

#[test]
fn invalid_regex_is_an_error_with_a_message() {
    let e = ClaudeMatcher::parse(Some("(?i)bash"), &mut PatternBudget::per_file())
        .expect_err("invalid");
    assert_eq!(
        e.to_string(),
        "Invalid regular expression: /(?i)bash/: Invalid group (at character 1)"
    );
}

#[test]
fn a_catastrophic_matcher_counts_as_matching() {
    let m = parse(Some("^(a+)+(?=b)"));
    let target = format!("{}c", "a".repeat(40));
    assert!(m.test(&target).is_err());
    assert!(m.is_match(&target));
    let mut gave_up = Vec::new();
    assert_eq!(
        ClaudeIndex::build([(0, &m)]).select(&target, &mut gave_up),
        vec![0]
    );
    assert_eq!(gave_up.len(), 1, "{gave_up:?}");
    assert!(gave_up[0].contains("gave up"), "{gave_up:?}");
}

#[test]
fn many_catastrophic_matchers_share_one_allowance_per_event() {
    // Each gives up after a search's limit; together they stop at the
    // event's allowance, and the rest count as matching untried.
    let ms: Vec<ClaudeMatcher> = (0..60)
        .map(|i| parse(Some(&format!("^(a+)+(?=b){i}"))))
        .collect();
    let target = format!("{}c", "a".repeat(40));
    let mut gave_up = Vec::new();
    let index = ClaudeIndex::build(ms.iter().enumerate());
    assert_eq!(
        index.select(&target, &mut gave_up),
        (0..60).collect::<Vec<_>>()
    );
    let tried = gave_up.iter().filter(|g| g.contains("gave up")).count();
    assert!(tried <= 20, "{tried} searches ran to their limit");
    let last = gave_up.last().expect("a summary");
    assert!(
        last.contains("matchers were not tried") && last.contains("count as matching"),
        "{last}"
    );
}

#[test]
fn index_agrees_with_matchers_on_astral_targets() {
    let ms: Vec<ClaudeMatcher> = ["^.{2}$", "^.$", "x", "(?=.)", "*"]
        .iter()
        .map(|m| parse(Some(m)))
        .collect();
    let index = ClaudeIndex::build(ms.iter().enumerate());
    // One astral character is two UTF-16 units, as in JavaScript.
    assert_eq!(index.select("😀", &mut Vec::new()), vec![0, 3, 4]);
    assert_eq!(index.select("é", &mut Vec::new()), vec![1, 3, 4]);
}

#[test]
fn describe() {
    assert_eq!(parse(None).describe(), "matches everything");
    assert_eq!(
        parse(Some("Edit, Write")).describe(),
        "`Edit|Write` (exact names: `Edit`, `Write`)"
    );
    assert_eq!(
        parse(Some("Ba.*")).describe(),
        "`Ba.*` (JavaScript regular expression, anywhere in the name)"
    );
}
