#!/usr/bin/env python3
"""Round-3 cases (cases/r3_*): events not recorded in rounds 1-2 and the
multi-deny merge.  Same conventions as make_cases_r2.py (placeholders,
case.json keys, --debug-file, stable_ids).  Round-3 harness additions:

  * bin/hook.py records the FULL raw stdin (`stdin_raw`), summarize.py keeps it
    in observed.json (path- and id-normalised), so field order and exact
    serialisation are visible.
  * fake_api.py: a script turn may be {"error": {"status": 429, "type":
    "rate_limit_error", "message": "...", "headers": {...}, "sse": false}} to
    answer that turn with an API error (HTTP status + Anthropic error body), or
    with "sse": true an HTTP 200 stream carrying message_start then an `error`
    event.  Used for StopFailure.

Re-run after editing: python3 make_cases_r3.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def hook(label, *flags, timeout=None, **fields):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    h = {"type": "command", "command": cmd}
    if timeout is not None:
        h["timeout"] = timeout
    h.update(fields)
    return h


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def js(obj):
    return q(json.dumps(obj))


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


def bash2(cmd1, cmd2, text="Running two commands.", desc1="first", desc2="second"):
    """ONE assistant message with TWO Bash tool_use blocks (a batch)."""
    return {"text": text, "tool_uses": [{"name": "Bash", "input": {"command": cmd1, "description": desc1}},
                                        {"name": "Bash", "input": {"command": cmd2, "description": desc2}}]}


def marker_bash(marker="marker_tool_ran", extra=""):
    return bash("echo ran > @OUT@/%s; echo hi%s" % (marker, extra), desc="Write marker")


def tool(name, say="Using a tool.", **inp):
    return {"text": say, "tool_use": {"name": name, "input": inp}}


FINAL = {"text": "Final answer from fake model."}
POST_REC = {"matcher": "*", "hooks": [hook("post")]}
STOP_REC = {"hooks": [hook("stop")]}


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


def write_case(name, question, hooks, turns, prompt="Run the command please.", user_settings=None,
               settings_extra=None, sentinels=(), debug=True, side_turns=None, **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    for stale in ("user_settings.json",):
        p = os.path.join(d, stale)
        if os.path.exists(p):
            os.remove(p)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True}
    args = list(extra.pop("extra_args", []))
    if debug:
        args += DEBUG
    case["extra_args"] = args
    wf = dict(extra.pop("workspace_files", {}))
    if wf:
        case["workspace_files"] = wf
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    settings = dict(settings_extra or {})
    if hooks is not None:
        settings["hooks"] = hooks
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"}
    if side_turns:
        script["side_turns"] = side_turns
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)
    if user_settings is not None:
        json.dump(user_settings, open(os.path.join(d, "user_settings.json"), "w"), indent=2)


# ===================================================== 1. two denies on one tool
# Hook A is FIRST in config but SLOWER (sleeps 0.6 s); hook B is second and fast.
# So config order = A,B and completion order = B,A.  The _rev variants swap
# which one is slow.
def deny_json(reason):
    return "--stdout " + js(hso("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason))


for suffix, slow_first in (("", True), ("_rev", False)):
    sa, sb = ("--sleep 0.6", "") if slow_first else ("", "--sleep 0.6")
    order = ("A first in config and slow (completes last)" if slow_first
             else "A first in config and fast; B slow (completes last)")
    write_case("r3_two_denies_exit2" + suffix,
               "Two PreToolUse groups on Bash both exit 2 with different stderr (%s). Which text(s) does the model get, joined how, in which order?" % order,
               {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a", "--exit 2", "--stderr 'DENY_A_SENTINEL stderr of A'", *[x for x in [sa] if x])]},
                               {"matcher": "Bash", "hooks": [hook("deny_b", "--exit 2", "--stderr 'DENY_B_SENTINEL stderr of B'", *[x for x in [sb] if x])]}],
                "PostToolUse": [POST_REC]},
               [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "DENY_B_SENTINEL"])
    write_case("r3_two_denies_json" + suffix,
               "Two PreToolUse groups on Bash both print permissionDecision deny with different reasons (%s). Which reason(s) reach the model, joined how, in which order?" % order,
               {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a", deny_json("DENY_A_SENTINEL reason of A"), *[x for x in [sa] if x])]},
                               {"matcher": "Bash", "hooks": [hook("deny_b", deny_json("DENY_B_SENTINEL reason of B"), *[x for x in [sb] if x])]}],
                "PostToolUse": [POST_REC]},
               [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "DENY_B_SENTINEL"])
    write_case("r3_two_denies_mixed" + suffix,
               "PreToolUse on Bash: A exits 2 with stderr, B prints JSON deny (%s). Which text reaches the model?" % order,
               {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a_exit2", "--exit 2", "--stderr 'DENY_A_SENTINEL stderr of A'", *[x for x in [sa] if x])]},
                               {"matcher": "Bash", "hooks": [hook("deny_b_json", deny_json("DENY_B_SENTINEL reason of B"), *[x for x in [sb] if x])]}],
                "PostToolUse": [POST_REC]},
               [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "DENY_B_SENTINEL"])

# two denies inside ONE matcher group (same handler list)
write_case("r3_two_denies_same_group",
           "Two exit-2 PreToolUse handlers in the SAME matcher group (A first, slow 0.6 s; B fast). Model-visible text?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a", "--exit 2", "--stderr 'DENY_A_SENTINEL stderr of A'", "--sleep 0.6"),
                                                         hook("deny_b", "--exit 2", "--stderr 'DENY_B_SENTINEL stderr of B'")]}]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "DENY_B_SENTINEL"])


# a slow ALLOW after a fast deny: does "last to finish" also let an allow override a deny?
def allow_json(reason):
    return "--stdout " + js(hso("PreToolUse", permissionDecision="allow", permissionDecisionReason=reason))


write_case("r3_deny_fast_allow_slow",
           "PreToolUse: A prints JSON deny (fast), B prints JSON allow (slow, 0.6 s). Does the tool run? (round-1 case o had allow fast / deny slow)",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a_fast", deny_json("DENY_A_SENTINEL reason of A"))]},
                           {"matcher": "Bash", "hooks": [hook("allow_b_slow", allow_json("ALLOW_B_SENTINEL reason"), "--sleep 0.6")]}],
            "PostToolUse": [POST_REC]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "ALLOW_B_SENTINEL"])
write_case("r3_exit2_fast_allow_slow",
           "PreToolUse: A exits 2 (fast), B prints JSON allow (slow, 0.6 s). Does the tool run?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("exit2_a_fast", "--exit 2", "--stderr 'DENY_A_SENTINEL stderr of A'")]},
                           {"matcher": "Bash", "hooks": [hook("allow_b_slow", allow_json("ALLOW_B_SENTINEL reason"), "--sleep 0.6")]}],
            "PostToolUse": [POST_REC]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "ALLOW_B_SENTINEL"])
write_case("r3_deny_json_no_reason",
           "PreToolUse JSON deny WITHOUT permissionDecisionReason: what text does the model get?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_noreason", "--stdout " + js(hso("PreToolUse", permissionDecision="deny")))]}]},
           [marker_bash(), FINAL])
write_case("r3_deny_slow_plus_context_fast",
           "PreToolUse: A JSON deny (slow 0.6 s) + additionalContext; B fast additionalContext only. Are both contexts delivered, in which order?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_ctx_a_slow", "--sleep 0.6", "--stdout " + js(hso("PreToolUse", permissionDecision="deny", permissionDecisionReason="DENY_A_SENTINEL reason", additionalContext="CTX_A_SENTINEL ctx of A")))]},
                           {"matcher": "Bash", "hooks": [hook("ctx_b_fast", "--stdout " + js(hso("PreToolUse", additionalContext="CTX_B_SENTINEL ctx of B")))]}]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "CTX_A_SENTINEL", "CTX_B_SENTINEL"])

# ===================================================== 2. invalid regex matcher
write_case("r3_invalid_regex_matcher",
           "A PreToolUse group with matcher `Bash(` (invalid JS regex) next to a valid `Bash` group and a PostToolUse group in the same file. Does the file load? Does either fire? Any error in debug log / transcript?",
           {"PreToolUse": [{"matcher": "Bash(", "hooks": [hook("pre_invalid_regex")]},
                           {"matcher": "Bash", "hooks": [hook("pre_valid")]},
                           {"matcher": "[", "hooks": [hook("pre_invalid_bracket")]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_valid")]}]},
           [marker_bash(), FINAL])

# ===================================================== 3. PostToolBatch
BATCH_TURNS = [bash2("echo one > @OUT@/marker_one; echo one", "echo two > @OUT@/marker_two; echo two"), FINAL]
BATCH_Q = "ONE assistant message with TWO Bash tool_use blocks; PostToolBatch hook %s. Payload? What does the model see, does the loop stop?"
write_case("r3_post_tool_batch",
           BATCH_Q % "records only (exit 0, no output); PostToolUse recorder too",
           {"PostToolBatch": [{"hooks": [hook("batch")]}], "PostToolUse": [POST_REC]},
           BATCH_TURNS)
write_case("r3_post_tool_batch_block",
           BATCH_Q % 'prints {"decision":"block","reason":R}',
           {"PostToolBatch": [{"hooks": [hook("batch", "--stdout " + js({"decision": "block", "reason": "BATCH_BLOCK_SENTINEL reason"}))]}],
            "Stop": [STOP_REC], "SessionEnd": [{"hooks": [hook("session_end")]}]},
           BATCH_TURNS, sentinels=["BATCH_BLOCK_SENTINEL"])
write_case("r3_post_tool_batch_exit2",
           BATCH_Q % "exits 2 with stderr",
           {"PostToolBatch": [{"hooks": [hook("batch", "--exit 2", "--stderr 'BATCH_EXIT2_SENTINEL stderr'")]}],
            "Stop": [STOP_REC], "SessionEnd": [{"hooks": [hook("session_end")]}]},
           BATCH_TURNS, sentinels=["BATCH_EXIT2_SENTINEL"])
write_case("r3_post_tool_batch_context",
           BATCH_Q % "prints hookSpecificOutput.additionalContext; a second handler prints plain stdout",
           {"PostToolBatch": [{"hooks": [hook("batch_ctx", "--stdout " + js(hso("PostToolBatch", additionalContext="BATCH_CTX_SENTINEL ctx"))),
                                         hook("batch_plain", "--stdout 'BATCH_PLAIN_SENTINEL plain stdout'")]}]},
           BATCH_TURNS, sentinels=["BATCH_CTX_SENTINEL", "BATCH_PLAIN_SENTINEL"])
write_case("r3_post_tool_batch_single",
           "A single Bash tool_use (not a parallel batch): does PostToolBatch fire, with a one-element tool_calls?",
           {"PostToolBatch": [{"hooks": [hook("batch")]}]},
           [marker_bash(), FINAL])
write_case("r3_post_tool_batch_matcher",
           "PostToolBatch groups with matcher `NoSuchTool` and `Bash`: is the matcher ignored?",
           {"PostToolBatch": [{"matcher": "NoSuchTool", "hooks": [hook("batch_m_nosuch")]},
                              {"matcher": "Bash", "hooks": [hook("batch_m_bash")]}]},
           BATCH_TURNS)

write_case("r3_post_tool_batch_mixed_results",
           "Batch of three Bash calls: 1st fails (exit 3), 2nd is denied by a PreToolUse exit 2 (via `if`), 3rd prints two lines. PostToolBatch tool_calls[].tool_response for each? Does a denied call appear?",
           {"PostToolBatch": [{"hooks": [hook("batch")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_deny_two", "--exit 2", "--stderr 'PRE_DENY_SENTINEL'", **{"if": "Bash(echo two*)"})]}]},
           [{"text": "Three commands.", "tool_uses": [
               {"name": "Bash", "input": {"command": "echo failing >&2; exit 3", "description": "fails"}},
               {"name": "Bash", "input": {"command": "echo two > @OUT@/marker_two; echo two", "description": "denied"}},
               {"name": "Bash", "input": {"command": "printf 'line1\\nline2\\n'", "description": "two lines"}}]}, FINAL])

# ===================================================== 4. UserPromptExpansion
CMD_FILES = {".claude/commands/mycmd.md": "---\ndescription: test command\n---\nMYCMD_BODY_SENTINEL do the thing with: $ARGUMENTS\n"}
UPE_Q = "Custom slash command .claude/commands/mycmd.md, prompt `/mycmd some args` in -p; UserPromptExpansion hook %s. Payload? Effect?"
write_case("r3_prompt_expansion",
           UPE_Q % "records only; UserPromptSubmit recorder too (which fires first, what prompt does each see?)",
           {"UserPromptExpansion": [{"hooks": [hook("upe")]}], "UserPromptSubmit": [{"hooks": [hook("ups")]}]},
           [FINAL], prompt="/mycmd some args", workspace_files=CMD_FILES, sentinels=["MYCMD_BODY_SENTINEL"])
write_case("r3_prompt_expansion_exit2",
           UPE_Q % "exits 2 with stderr",
           {"UserPromptExpansion": [{"hooks": [hook("upe", "--exit 2", "--stderr 'UPE_EXIT2_SENTINEL stderr'")]}],
            "UserPromptSubmit": [{"hooks": [hook("ups")]}]},
           [FINAL], prompt="/mycmd some args", workspace_files=CMD_FILES, sentinels=["UPE_EXIT2_SENTINEL", "MYCMD_BODY_SENTINEL"])
write_case("r3_prompt_expansion_stdout",
           UPE_Q % "prints plain stdout (exit 0); a second handler prints additionalContext JSON",
           {"UserPromptExpansion": [{"hooks": [hook("upe_plain", "--stdout 'UPE_PLAIN_SENTINEL plain stdout'"),
                                               hook("upe_ctx", "--stdout " + js(hso("UserPromptExpansion", additionalContext="UPE_CTX_SENTINEL ctx")))]}]},
           [FINAL], prompt="/mycmd some args", workspace_files=CMD_FILES, sentinels=["UPE_PLAIN_SENTINEL", "UPE_CTX_SENTINEL", "MYCMD_BODY_SENTINEL"])
write_case("r3_prompt_expansion_block",
           UPE_Q % 'prints {"decision":"block","reason":R}',
           {"UserPromptExpansion": [{"hooks": [hook("upe", "--stdout " + js({"decision": "block", "reason": "UPE_BLOCK_SENTINEL reason"}))]}]},
           [FINAL], prompt="/mycmd some args", workspace_files=CMD_FILES, sentinels=["UPE_BLOCK_SENTINEL", "MYCMD_BODY_SENTINEL"])
write_case("r3_prompt_expansion_matcher",
           "UserPromptExpansion matchers `mycmd`, `othercmd`, `my.*`: which fire for `/mycmd some args`? Also a plain prompt (no slash) would not expand: checked by r3_prompt_expansion_plain.",
           {"UserPromptExpansion": [{"matcher": "mycmd", "hooks": [hook("upe_m_mycmd")]},
                                    {"matcher": "othercmd", "hooks": [hook("upe_m_othercmd")]},
                                    {"matcher": "my.*", "hooks": [hook("upe_m_regex")]}]},
           [FINAL], prompt="/mycmd some args", workspace_files=CMD_FILES)
write_case("r3_prompt_expansion_plain",
           "Plain prompt (no slash command): does UserPromptExpansion fire at all?",
           {"UserPromptExpansion": [{"hooks": [hook("upe")]}]},
           [FINAL], prompt="just a plain prompt", workspace_files=CMD_FILES)
write_case("r3_prompt_expansion_skill",
           "A skill .claude/skills/myskill/SKILL.md invoked as `/myskill x y`: does UserPromptExpansion fire, with which expansion_type/command_source?",
           {"UserPromptExpansion": [{"hooks": [hook("upe")]}]},
           [FINAL], prompt="/myskill x y",
           workspace_files={".claude/skills/myskill/SKILL.md": "---\nname: myskill\ndescription: test skill\n---\nMYSKILL_BODY_SENTINEL args: $ARGUMENTS\n"},
           sentinels=["MYSKILL_BODY_SENTINEL"])

# ===================================================== 5. Setup (--init / --init-only / --maintenance: hidden flags)
def setup_hooks(extra_setup=()):
    return {"Setup": [{"matcher": "init", "hooks": [hook("setup_m_init", "--stdout " + js(hso("Setup", additionalContext="SETUP_CTX_SENTINEL ctx from init-matcher hook")))]},
                      {"matcher": "maintenance", "hooks": [hook("setup_m_maint", "--stdout 'SETUP_PLAIN_MAINT_SENTINEL plain'")]},
                      {"hooks": [hook("setup_nomatcher", "--stdout 'SETUP_PLAIN_SENTINEL plain stdout'", "--dump-env")] + list(extra_setup)}],
            "SessionStart": [{"hooks": [hook("session_start")]}],
            "UserPromptSubmit": [{"hooks": [hook("ups")]}]}


SETUP_SENT = ["SETUP_CTX_SENTINEL", "SETUP_PLAIN_SENTINEL", "SETUP_PLAIN_MAINT_SENTINEL"]
write_case("r3_setup_init",
           "`claude -p --init` with Setup hooks (matchers init / maintenance / none; JSON additionalContext and plain stdout). Payload? Order vs SessionStart? Does any of it reach the model?",
           setup_hooks(), [FINAL], extra_args=["--init"], sentinels=SETUP_SENT)
write_case("r3_setup_maintenance",
           "`claude -p --maintenance` with the same Setup hooks.",
           setup_hooks(), [FINAL], extra_args=["--maintenance"], sentinels=SETUP_SENT)
write_case("r3_setup_init_only",
           "`claude -p --init-only` with the same Setup hooks: does it exit before any API call?",
           setup_hooks(), [FINAL], extra_args=["--init-only"], sentinels=SETUP_SENT)
write_case("r3_setup_none",
           "Plain `claude -p` (no --init): does Setup fire at all?",
           setup_hooks(), [FINAL], sentinels=SETUP_SENT)
write_case("r3_setup_exit2",
           "`claude -p --init`: a Setup hook exits 2 with stderr; another prints decision:block. Does the session continue? Where does the stderr go?",
           {"Setup": [{"hooks": [hook("setup_exit2", "--exit 2", "--stderr 'SETUP_EXIT2_SENTINEL stderr'"),
                                 hook("setup_block", "--stdout " + js({"decision": "block", "reason": "SETUP_BLOCK_SENTINEL reason"}))]}],
            "SessionStart": [{"hooks": [hook("session_start")]}]},
           [FINAL], extra_args=["--init"], sentinels=["SETUP_EXIT2_SENTINEL", "SETUP_BLOCK_SENTINEL"])

# ===================================================== 6. InstructionsLoaded
IL_FILES = {"CLAUDE.md": "# Project memory\nIL_PROJECT_SENTINEL project instructions.\n@docs/extra.md\n",
            "docs/extra.md": "IL_INCLUDE_SENTINEL included file.\n",
            "CLAUDE.local.md": "IL_LOCAL_SENTINEL local instructions.\n",
            ".claude/rules/style.md": "IL_RULE_SENTINEL always-on style rule.\n",
            ".claude/rules/ts.md": "---\npaths:\n  - \"src/**/*.ts\"\n---\nIL_TSRULE_SENTINEL ts-only rule.\n",
            "src/a.ts": "const x = 1;\n",
            "sub/CLAUDE.md": "IL_NESTED_SENTINEL nested instructions.\n",
            "sub/file.txt": "hello from sub\n"}
IL_TURNS = [tool("Read", file_path="@WS@/src/a.ts"), tool("Read", file_path="@WS@/sub/file.txt"), FINAL]
IL_SENT = ["IL_PROJECT_SENTINEL", "IL_INCLUDE_SENTINEL", "IL_LOCAL_SENTINEL", "IL_RULE_SENTINEL", "IL_TSRULE_SENTINEL", "IL_NESTED_SENTINEL"]
write_case("r3_instructions_loaded",
           "CLAUDE.md (with @include), CLAUDE.local.md, .claude/rules/style.md, path-scoped .claude/rules/ts.md, sub/CLAUDE.md; the model Reads src/a.ts then sub/file.txt. InstructionsLoaded payloads (one per file? load_reason?), order vs SessionStart.",
           {"InstructionsLoaded": [{"hooks": [hook("il")]}], "SessionStart": [{"hooks": [hook("session_start")]}]},
           IL_TURNS, workspace_files=IL_FILES, sentinels=IL_SENT)
write_case("r3_instructions_loaded_exit2",
           "Same files; the InstructionsLoaded hook exits 2 with stderr (and a sibling prints additionalContext + decision block). Is anything blocked / not loaded? Does anything reach the model?",
           {"InstructionsLoaded": [{"hooks": [hook("il_exit2", "--exit 2", "--stderr 'IL_EXIT2_SENTINEL stderr'"),
                                              hook("il_json", "--stdout " + js(dict(hso("InstructionsLoaded", additionalContext="IL_CTX_SENTINEL ctx"), decision="block", reason="IL_BLOCK_SENTINEL")))]}]},
           IL_TURNS, workspace_files=IL_FILES, sentinels=IL_SENT + ["IL_EXIT2_SENTINEL", "IL_CTX_SENTINEL", "IL_BLOCK_SENTINEL"])
write_case("r3_instructions_loaded_matcher",
           "InstructionsLoaded matchers `session_start`, `path_glob_match`, `nested_traversal`, `include`: which fire for which file?",
           {"InstructionsLoaded": [{"matcher": m, "hooks": [hook("il_m_" + m)]} for m in ("session_start", "path_glob_match", "nested_traversal", "include")]},
           IL_TURNS, workspace_files=IL_FILES)

write_case("r3_instructions_loaded_slow_ctx",
           "InstructionsLoaded hook prints ONLY hookSpecificOutput.additionalContext and sleeps 1 s. Does startup / the Read tool wait for it? Does the context reach the model?",
           {"InstructionsLoaded": [{"hooks": [hook("il_slow_ctx", "--sleep 1", "--stdout " + js(hso("InstructionsLoaded", additionalContext="IL_CTX_SENTINEL ctx")))]}]},
           IL_TURNS, workspace_files=IL_FILES, sentinels=["IL_CTX_SENTINEL"], settle_s=2)

# ===================================================== 7. StopFailure (fake_api.py "error" turns)
SF_HOOKS = {"StopFailure": [{"hooks": [hook("stop_failure")]}], "Stop": [STOP_REC],
            "SessionEnd": [{"hooks": [hook("session_end")]}]}
SF_ENV = {"CLAUDE_CODE_MAX_RETRIES": "0"}
for name, err, q_ in (
        ("r3_stop_failure_429", {"status": 429, "type": "rate_limit_error", "message": "SF_MSG_SENTINEL rate limited"}, "HTTP 429 rate_limit_error"),
        ("r3_stop_failure_500", {"status": 500, "type": "api_error", "message": "SF_MSG_SENTINEL internal"}, "HTTP 500 api_error"),
        ("r3_stop_failure_529", {"status": 529, "type": "overloaded_error", "message": "SF_MSG_SENTINEL overloaded"}, "HTTP 529 overloaded_error"),
        ("r3_stop_failure_400", {"status": 400, "type": "invalid_request_error", "message": "SF_MSG_SENTINEL bad request"}, "HTTP 400 invalid_request_error"),
        ("r3_stop_failure_sse", {"status": 200, "type": "overloaded_error", "message": "SF_MSG_SENTINEL sse overloaded", "sse": True}, "an SSE `error` event (overloaded_error) inside a 200 stream, after message_start"),
        ("r3_stop_failure_sse_nostart", {"status": 200, "type": "overloaded_error", "message": "SF_MSG_SENTINEL sse overloaded", "sse": True, "sse_start": False}, "a 200 stream whose only event is an SSE `error` (overloaded_error)")):
    write_case(name, "The first main API call fails with %s (CLAUDE_CODE_MAX_RETRIES=0). StopFailure payload (error, error_details, last_assistant_message)? Does Stop fire? -p result?" % q_,
               SF_HOOKS, [{"error": err}], env=SF_ENV, sentinels=["SF_MSG_SENTINEL"])
write_case("r3_stop_failure_after_tool",
           "One Bash turn succeeds, the second API call fails with 500. StopFailure last_assistant_message?",
           SF_HOOKS, [marker_bash(), {"error": {"status": 500, "type": "api_error", "message": "SF_MSG_SENTINEL internal"}}],
           env=SF_ENV)
write_case("r3_stop_failure_retries",
           "429 with default retries (no CLAUDE_CODE_MAX_RETRIES): how many attempts, how long, then StopFailure? (every retry fails: same turn index)",
           SF_HOOKS, [{"error": {"status": 429, "type": "rate_limit_error", "message": "SF_MSG_SENTINEL rate limited", "headers": {"retry-after": "0"}}}],
           timeout=120)
write_case("r3_stop_failure_outputs",
           "500 error; StopFailure hooks: exit 2 + stderr, decision block, additionalContext, plain stdout, systemMessage. Any effect on exit code / result / further API calls?",
           {"StopFailure": [{"hooks": [hook("sf_exit2", "--exit 2", "--stderr 'SF_EXIT2_SENTINEL'"),
                                       hook("sf_json", "--stdout " + js(dict(hso("StopFailure", additionalContext="SF_CTX_SENTINEL"), decision="block", reason="SF_BLOCK_SENTINEL", systemMessage="SF_SYSMSG_SENTINEL"))),
                                       hook("sf_plain", "--stdout 'SF_PLAIN_SENTINEL'")]}],
            "SessionEnd": [{"hooks": [hook("session_end")]}]},
           [{"error": {"status": 500, "type": "api_error", "message": "SF_MSG_SENTINEL internal"}}, FINAL],
           env=SF_ENV, sentinels=["SF_EXIT2_SENTINEL", "SF_CTX_SENTINEL", "SF_BLOCK_SENTINEL", "SF_SYSMSG_SENTINEL", "SF_PLAIN_SENTINEL"])
write_case("r3_stop_failure_matcher",
           "StopFailure matchers `rate_limit`, `server_error`, `overloaded`, `unknown`, `rate_.*` for a 429.",
           {"StopFailure": [{"matcher": m, "hooks": [hook("sf_m_" + m.replace(".*", "_regex"))]} for m in ("rate_limit", "server_error", "overloaded", "unknown", "rate_.*")]},
           [{"error": {"status": 429, "type": "rate_limit_error", "message": "SF_MSG_SENTINEL rate limited"}}], env=SF_ENV)


if __name__ == "__main__":
    print("wrote", len([d for d in os.listdir(CASES) if d.startswith("r3_")]), "r3 cases")
