use super::types::string;
use super::*;

fn rejected(text: &str) -> Option<String> {
    let root = crate::config::json::parse(text).expect("JSON");
    let (cleaned, _) = clean(&root, false);
    check(&cleaned, &[]).into_iter().next().map(|r| r.message)
}

/// JSON keeps a repeated key's last value, and a file repeating one
/// 200,000 times is checked in linear time.
#[test]
fn a_repeated_key_counts_once_its_last_value() {
    let many = format!(
        r#"{{"env":{{{}"N":"x"}},"model":5,"model":"opus"}}"#,
        r#""N":[],"#.repeat(200_000)
    );
    assert_eq!(rejected(&many), None);
    assert_eq!(
        rejected(r#"{"env":{"N":"x","N":{"toString":1}}}"#).as_deref(),
        Some("`env.N` must be text, not an object")
    );
}

/// A file repeating a setting only managed settings may set, and a
/// marketplace or model-price entry Claude Code drops, 100,000 times
/// beside as many others is cleaned in linear time (a quadratic
/// cleaning would take minutes here).
#[test]
fn cleaning_a_file_of_many_repeated_keys_is_linear() {
    let many = format!(
        r#"{{{}{}"modelPricing":{{"overrides":{{{}"m":{{"input":1,"output":1,"cacheRead":1,"cacheWrite":1}}}}}},"model":"opus"}}"#,
        r#""isolation":1,"#.repeat(100_000),
        (0..100_000)
            .map(|i| format!(r#""k{i}":1,"#))
            .collect::<String>(),
        (0..100_000)
            .map(|i| format!(r#""r{i}":5,"#))
            .collect::<String>(),
    );
    assert_eq!(rejected(&many), None);
}

/// 2.1.332's schema library counts a text's length in code points (its
/// `nI`; `autoCompactOfferAnswer.model`'s 200 holds 200 emoji), zod in
/// UTF-16 units (2.1.197).
#[test]
fn lengths_are_counted_in_code_points() {
    let ty = serde_json::json!({"t": "string", "max": 2, "lengthIn": "codePoints"});
    assert!(string("\u{1F600}\u{1F600}", &ty));
    assert!(!string("\u{1F600}\u{1F600}\u{1F600}", &ty));
    let zod = serde_json::json!({"t": "string", "max": 2});
    assert!(!string("\u{1F600}\u{1F600}", &zod));
    assert!(string("ab", &zod));
}

#[test]
fn the_description_parses_and_has_every_setting() {
    let fields = schema()["fields"].as_object().expect("fields");
    assert_eq!(fields.len(), 208);
    assert!(fields.contains_key("model") && fields.contains_key("permissions"));
    // And the lists of the cleaning.
    assert!(null_is_removed("allowManagedHooksOnly") && !null_is_removed("disableAllHooks"));
    assert!(listed("managedOnly", "managedMcpServers") && listed("guardEvents", "PreToolUse"));
}

/// The cases Claude Code's own schema was run on (the research's first
/// cases, and the recordings).
#[test]
fn settings_claude_code_rejects_and_accepts() {
    for (text, why) in [
        (r#"{"model":5}"#, "`model` must be a string, not a number"),
        (r#"{"model":null}"#, "`model` must be a string, not null"),
        (
            r#"{"permissions":{"allow":"Bash"}}"#,
            "`permissions.allow` must be an array, not a string",
        ),
        (r#"{"env":[]}"#, "`env` must be an object, not an array"),
        (
            r#"{"statusLine":"x"}"#,
            "`statusLine` must be an object, not a string",
        ),
        (
            r#"{"cleanupPeriodDays":"5"}"#,
            "`cleanupPeriodDays` must be a whole number, not a string",
        ),
        (
            r#"{"cleanupPeriodDays":1.5}"#,
            "`cleanupPeriodDays` must be a whole number, not a number",
        ),
        (
            r#"{"includeCoAuthoredBy":"yes"}"#,
            "`includeCoAuthoredBy` must be a boolean, not a string",
        ),
        (
            r#"{"enabledPlugins":[]}"#,
            "`enabledPlugins` must be an object, not an array",
        ),
        (
            r#"{"apiKeyHelper":5}"#,
            "`apiKeyHelper` must be a string, not a number",
        ),
        (
            r#"{"disableAllHooks":"true"}"#,
            "`disableAllHooks` must be a boolean, not a string",
        ),
        (
            r#"{"sandbox":{"enabled":"true"}}"#,
            "`sandbox.enabled` must be a boolean, not a string",
        ),
        (
            r#"{"fallbackModel":"x"}"#,
            "`fallbackModel` must be an array, not a string",
        ),
        (
            r#"{"env":{"O":{"toString":1}}}"#,
            "`env.O` must be text, not an object",
        ),
    ] {
        assert_eq!(rejected(text).as_deref(), Some(why), "{text}");
    }
    for text in [
        r#"{"permissions":{"allow":[1,"Bash"],"deny":[null]}}"#.to_owned(),
        r#"{"allowedMcpServers":"x","deniedMcpServers":[{"serverName":"bad name"},{"serverName":"ok"}]}"#.to_owned(),
        r#"{"env":{"N":1,"Z":null,"O":{"a":1},"A":[1,2],"V":{"valueOf":1}}}"#.to_owned(),
        r#"{"unknownKey":5}"#.to_owned(),
        r#"{"theme":"nope","effortLevel":5}"#.to_owned(),
        r#"{"sandbox":{"bogus":1}}"#.to_owned(),
        r#"{"enabledPlugins":{"a@b":true}}"#.to_owned(),
        r#"{"hooks":{"PreToolUse":5}}"#.to_owned(),
        r#"{"model":5,"model":"opus"}"#.to_owned(),
    ] {
        assert_eq!(rejected(&text), None, "{text}");
    }
}
