#!/usr/bin/env python3
"""Round-9 cases (cases/r9_*): how Claude Code 2.1.197's per-handler `if` reads heredocs and
`$(cat <<'EOF' … EOF)`, found while checking public hook configurations against latch (the
public configurations themselves are described in FINDINGS.md §37, not copied here).

Every case has only recording hooks (bin/hook.py): a PreToolUse recorder per rule, each with its
own `if`, so a run shows which rules Claude Code found matching for each Bash call. The model
(script.json) makes one Bash call per command. Same conventions as make_cases_r8.py (harness =
/tmp/rec8; this file needs nothing beyond round 8).

Per case: ./run_r8.sh <case>...   Re-run after editing: python3 make_cases_r9.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def bash(cmd):
    return {"text": "Running the command.", "tool_use": {"name": "Bash", "input": {"command": cmd,
                                                                                  "description": "cmd"}}}


FINAL = {"text": "Final answer from fake model."}


def write_case(name, question, commands, rules):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": "Run the commands.", "max_turns": len(commands) + 5,
            "timeout": 240, "sentinels": [], "stable_ids": True, "extra_args": list(DEBUG)}
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "@HOOK@ --label all --out @OUT@"}]}]}
    for label, rule in rules:
        hooks["PreToolUse"].append({"matcher": "Bash", "hooks": [
            {"type": "command", "if": rule, "command": "@HOOK@ --label %s --out @OUT@" % label}]})
    json.dump({"hooks": hooks}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    script = {"turns": [bash(c) for c in commands] + [FINAL], "default_text": "Script exhausted.",
              "side_text": "Hook harness session"}
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)


SHAPES = ["git", "git status", "  git status", "GIT_PAGER=cat git log -1", "FOO=1 BAR=2 git status",
          "sudo git status", "time git status", "nohup git status", "(git status)",
          "echo hi | git hash-object --stdin", "git status; echo done", "echo $(git --version)",
          "bash -c 'git status'", "git status # comment", "env git status", "command git status",
          "xargs git status < /dev/null", "if true; then git status; fi", "/usr/bin/git status",
          "gitk --version", "echo git status", "cat <<EOF\ngit status\nEOF", "{ git status; }", "! git status",
          "git status &", "git status 2>&1 | head -1", "timeout 5 git status", "git  status", "git\tstatus",
          "LANG=C git reset --hard", "cd . && git reset --hard", "true && git clean -fd || true",
          "watch -n1 git status", "nice git status", "\\git status", "'git' status", "\"git\" status"]
write_case("r9_if_shapes", "`if: Bash(git *)` (a real repository's guard rule) against 37 command shapes.",
           SHAPES, [("if_git", "Bash(git *)")])

HEREDOCS = ["cat <<EOF\ngit status\nEOF", "cat <<EOF\nhello\nEOF", "cat <<'EOF'\nhello\nEOF",
            "cat <<'EOF'\ngit status\nEOF", "cat <<\"EOF\"\ngit status\nEOF", "cat <<-EOF\n\tgit status\nEOF",
            "cat <<EOF > /dev/null\nhello\nEOF", "cat <<EOF\n$HOME\nEOF", "cat <<\\EOF\ngit status\nEOF",
            "git hash-object --stdin <<EOF\nhello\nEOF", "cat <<EOF | wc -l\nhello\nEOF",
            "cat <<'EOF' | wc -l\nhello\nEOF", "cat <<EOF\nls -la\nEOF", "cat <<EOF\nnpm test\nEOF",
            "cat <<EOF && echo done\ngit status\nEOF", "echo a; cat <<EOF\nhello\nEOF"]
write_case("r9_if_heredoc", "Heredocs (quoted and unquoted delimiters, pipes after them) against four `if` rules.",
           HEREDOCS, [("if_git", "Bash(git *)"), ("if_ls", "Bash(ls *)"), ("if_npm", "Bash(npm test)"),
                      ("if_cat", "Bash(cat *)")])

SUBST = ["git commit -m \"$(cat <<'EOF'\nFix the bug\nEOF\n)\"", "echo \"$(cat <<'EOF'\nhello\nEOF\n)\"",
         "echo \"$(cat <<'EOF'\nline1\nline2\nEOF\n)\"", "echo $(cat <<'EOF'\nhello\nEOF\n)",
         "echo \"$(cat <<EOF\nhello\nEOF\n)\"", "echo \"$(cat <<'EOF'\n$HOME\nEOF\n)\"", "echo \"$(date)\"",
         "echo \"x $(cat <<'EOF'\nhello\nEOF\n) y\"", "echo $(date)", "echo $(cat /dev/null)",
         "echo \"$(cat /dev/null)\"", "echo \"$(cat <<'EOF'\nhello\nEOF\n)\" && ls",
         "echo \"$(cat <<-'EOF'\n\thello\nEOF\n)\"", "echo \"$(cat <<'EOF' | tr a b\nhello\nEOF\n)\"",
         "echo \"$(cat <<'EOF'\nhello\n\n\nEOF\n)\"", "echo \"a$(cat <<'EOF'\nhello\nEOF\n)\"",
         "echo \"$(cat <<\"EOF\"\nhello\nEOF\n)\"", "echo \"$(cat <<\\EOF\nhello\nEOF\n)\"",
         "echo \"$(cat <<'EOF'\nhello world\nEOF\n)\"", "echo \"$(cat <<'EOF'\n-n\nEOF\n)\"",
         "echo \"$(cat <<'EOF'\nline1\n-x\nEOF\n)\"", "echo \"$( cat <<'EOF'\nhello\nEOF\n)\"",
         "echo \"$(cat <<'EOF'\nhello `date`\nEOF\n)\""]
write_case("r9_if_subst", "`$(cat <<'EOF' … EOF)` inside and outside double quotes, and plain substitutions, "
           "against seven `if` rules.",
           SUBST, [("if_git", "Bash(git *)"), ("if_ls", "Bash(ls *)"), ("if_npm", "Bash(npm test)"),
                   ("if_echo", "Bash(echo hello)"), ("if_cat", "Bash(cat *)"), ("if_ahello", "Bash(echo ahello)"),
                   ("if_echo_star", "Bash(echo *)")])
print("ok")
