//! Any Claude Code matcher and target: classification and checking never
//! panic or hang; the folded index agrees with the matcher one by one; and
//! a regex's two engines (the `regex` crate's translation and the
//! backtracking matcher) agree wherever both answer.
#![no_main]

use latch::matcher::ecma::has_astral;
use latch::matcher::{ClaudeIndex, ClaudeMatcher, PatternBudget, WordSet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str, bool)| {
    let (matcher, target, narrow) = input;
    let words = if narrow {
        WordSet::Narrow
    } else {
        WordSet::Tools
    };
    let Ok(m) = ClaudeMatcher::parse_with(Some(matcher), words, &mut PatternBudget::per_file())
    else {
        return;
    };
    let index = ClaudeIndex::build([(0, &m)]);
    assert_eq!(
        index.select_tool(target, &mut Vec::new()) == vec![0],
        m.is_match_tool(target)
    );
    assert_eq!(
        index.select(target, &mut Vec::new()) == vec![0],
        m.is_match(target)
    );
    if let ClaudeMatcher::Regex(r) = &m {
        if !has_astral(target) {
            if let (Ok(a), Ok(b)) = (r.test(target), r.test_backtracking(target)) {
                assert_eq!(a, b, "/{}/ on {target:?}", r.as_str());
            }
        }
    }
});
