use super::heredoc::dangerous_body;
use super::walk::SUBSTITUTION_OUTPUT;
use super::*;

fn exact(cmd: &str) -> Vec<String> {
    match split(cmd) {
        Commands::Exact(c) => c,
        other => panic!("{cmd:?}: {other:?}"),
    }
}

#[test]
fn lists_pipelines_and_subshells_are_split() {
    assert_eq!(exact("ls && git push"), ["ls", "git push"]);
    assert_eq!(exact("git --version | cat"), ["git --version", "cat"]);
    assert_eq!(exact("git --version; echo x"), ["git --version", "echo x"]);
    assert_eq!(exact("(git --version)"), ["git --version"]);
    assert_eq!(exact("a || b & c |& d"), ["a", "b", "c", "d"]);
    assert_eq!(exact("! grep x f"), ["grep x f"]);
}

#[test]
fn assignments_redirects_and_quotes() {
    assert_eq!(exact("FOO=x git --version"), ["git --version"]);
    assert_eq!(exact("git --version > /dev/null"), ["git --version"]);
    assert_eq!(exact("echo 'git push'"), ["echo git push"]);
    assert_eq!(exact("echo \"a \\\"b\\\" $HOME\""), ["echo a \"b\" $HOME"]);
    assert_eq!(exact("bash -c 'git --version'"), ["bash -c git --version"]);
    assert_eq!(exact("cat <<'EOF'\ngit push\nEOF"), ["cat"]);
    assert_eq!(exact("X=1"), Vec::<String>::new());
    assert_eq!(exact("export A=b"), ["export A=b"]);
    assert_eq!(exact(""), Vec::<String>::new());
    assert_eq!(exact("  \n "), Vec::<String>::new());
}

#[test]
fn substitution_is_approximate() {
    let Commands::Approximate { commands, .. } = split("echo $(git --version)") else {
        panic!("approximate");
    };
    assert!(
        commands.contains(&"git --version".to_owned()),
        "{commands:?}"
    );
    assert!(
        commands.iter().any(|c| c.starts_with("echo ")),
        "{commands:?}"
    );
    assert!(matches!(
        split("echo `git --version`"),
        Commands::Approximate { .. }
    ));
    assert!(matches!(split("echo $FOO"), Commands::Approximate { .. }));
    assert!(matches!(
        split("echo \"$FOO\""),
        Commands::Approximate { .. }
    ));
}

#[test]
fn what_cannot_be_read_is_unknown() {
    for cmd in [
        "echo ${x}",
        "if true; then ls; fi",
        "for i in a; do ls; done",
        "echo $'a'",
        "echo {a,b}",
        "cat <(ls)",
        "echo $((1+2))",
        "echo 'unterminated",
        "ls )",
        "echo \u{a0}x",
        "a\\ b",
        "cat <<< x",
    ] {
        assert!(
            matches!(split(cmd), Commands::Unknown(_)),
            "{cmd:?}: {:?}",
            split(cmd)
        );
    }
    let long = "a ".repeat(MAX_COMMAND_LEN);
    assert!(matches!(
        split(&long),
        Commands::Unknown(FailOpen::TooLong { .. })
    ));
}

#[test]
fn heredocs_read_as_claude_code_reads_them() {
    // Recorded: r9_if_heredoc. A quoted delimiter keeps the body data.
    for cmd in [
        "cat <<'EOF'\ngit push\nEOF",
        "cat <<\"EOF\"\ngit push\nEOF",
        "cat <<\\EOF\ngit push\nEOF",
    ] {
        assert_eq!(exact(cmd), ["cat"], "{cmd:?}");
    }
    // An unquoted delimiter, whatever the body; a pipeline or a
    // redirect under the heredoc; a backslash inside quotes; a body
    // line that would end the heredoc early.
    for cmd in [
        "cat <<EOF\nhello\nEOF",
        "cat <<-EOF\n\thello\nEOF",
        "git hash-object --stdin <<EOF\nhello\nEOF",
        "cat <<'EOF' | wc -l\nhello\nEOF",
        "cat <<'E\\OF'\nhello\nE\\OF",
        "cat <<'EOF'\nEOF)\nEOF",
        "echo $(cat <<'EOF'\nhello\nEOF\n)",
    ] {
        assert!(
            matches!(split(cmd), Commands::Unknown(_)),
            "{cmd:?}: {:?}",
            split(cmd)
        );
    }
}

#[test]
fn a_quoted_cat_heredoc_substitution_is_its_text() {
    // Recorded: r9_if_subst.
    assert_eq!(
        exact("git commit -m \"$(cat <<'EOF'\nFix it\nEOF\n)\""),
        ["git commit -m Fix it"]
    );
    assert_eq!(
        exact("echo \"a$(cat <<'EOF'\nhello\n\n\nEOF\n)\""),
        ["echo ahello"]
    );
    assert_eq!(
        exact("echo \"$(cat <<'EOF'\nline1\nline2\nEOF\n)\""),
        [format!("echo \n{SUBSTITUTION_OUTPUT}")]
    );
    for cmd in [
        "echo \"$(cat <<'EOF'\n-x\nline2\nEOF\n)\"",
        "echo \"$(cat <<'EOF'\ncat /proc/1/environ\nEOF\n)\"",
        "echo \"$(cat <<'EOF'\n{ system(\"ls\") }\nEOF\n)\"",
        "echo \"$(cat <<-'EOF'\n\thello\nEOF\n)\"",
    ] {
        assert!(
            matches!(split(cmd), Commands::Unknown(_)),
            "{cmd:?}: {:?}",
            split(cmd)
        );
    }
    assert!(!dangerous_body("mysystem (x)"));
    assert!(dangerous_body("x; system (x)"));
}

#[test]
fn an_unknown_construct_overrides_an_approximate_one() {
    assert!(matches!(split("echo $X ${y}"), Commands::Unknown(_)));
    assert!(matches!(
        split("echo $(ls) $(cat <(ls))"),
        Commands::Unknown(_)
    ));
    assert!(matches!(
        split("echo $X $(ls)"),
        Commands::Approximate { .. }
    ));
}

#[test]
fn slow_parses_give_up() {
    let start = std::time::Instant::now();
    for hostile in [
        "a|".repeat(4999),
        format!("(( a{} ))", "[0]".repeat(3300)),
        "x=(".repeat(3000),
    ] {
        assert!(matches!(split(&hostile), Commands::Unknown(_)));
    }
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    // A cancelled parse leaves the parser ready for the next command.
    assert_eq!(
        split("git push"),
        Commands::Exact(vec!["git push".to_owned()])
    );
}

#[test]
fn deep_nesting_gives_up() {
    let deep = format!("{}ls{}", "(".repeat(400), ")".repeat(400));
    assert!(matches!(split(&deep), Commands::Unknown(_)));
    let subst = format!("{}ls{}", "$(".repeat(300), ")".repeat(300));
    assert!(matches!(split(&subst), Commands::Unknown(_)));
}
