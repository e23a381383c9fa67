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
    side_text = extra.pop("side_text", None)
    script_extra = {k: extra.pop(k) for k in ("compact_match", "compact_text", "turn_selection") if k in extra}
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
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": side_text or "Hook harness session"}
    if side_turns:
        script["side_turns"] = side_turns
    script.update(script_extra)
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
def ask_json(reason):
    return "--stdout " + js(hso("PreToolUse", permissionDecision="ask", permissionDecisionReason=reason))


write_case("r3_deny_fast_ask_slow",
           "PreToolUse: A JSON deny (fast), B JSON ask (slow 0.6 s), -p bypass. Which reason reaches the model (docs: deny > ask)?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a_fast", deny_json("DENY_A_SENTINEL reason of A"))]},
                           {"matcher": "Bash", "hooks": [hook("ask_b_slow", ask_json("ASK_B_SENTINEL reason of B"), "--sleep 0.6")]}]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL", "ASK_B_SENTINEL"])
write_case("r3_ask_fast_deny_slow",
           "PreToolUse: A JSON ask (fast), B JSON deny (slow 0.6 s). Which reason reaches the model?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("ask_a_fast", ask_json("ASK_A_SENTINEL reason of A"))]},
                           {"matcher": "Bash", "hooks": [hook("deny_b_slow", deny_json("DENY_B_SENTINEL reason of B"), "--sleep 0.6")]}]},
           [marker_bash(), FINAL], sentinels=["ASK_A_SENTINEL", "DENY_B_SENTINEL"])
write_case("r3_ask_fast_allow_slow",
           "PreToolUse: A JSON ask (fast), B JSON allow (slow 0.6 s), -p bypass. Tool run?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("ask_a_fast", ask_json("ASK_A_SENTINEL reason of A"))]},
                           {"matcher": "Bash", "hooks": [hook("allow_b_slow", allow_json("ALLOW_B_SENTINEL reason"), "--sleep 0.6")]}]},
           [marker_bash(), FINAL], sentinels=["ASK_A_SENTINEL", "ALLOW_B_SENTINEL"])
write_case("r3_deny_fast_defer_slow",
           "PreToolUse: A JSON deny (fast), B JSON defer (slow 0.6 s). Deny or defer?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("deny_a_fast", deny_json("DENY_A_SENTINEL reason of A"))]},
                           {"matcher": "Bash", "hooks": [hook("defer_b_slow", "--stdout " + js(hso("PreToolUse", permissionDecision="defer")), "--sleep 0.6")]}]},
           [marker_bash(), FINAL], sentinels=["DENY_A_SENTINEL"])
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
write_case("r3_post_tool_batch_two_contexts",
           "Batch of two Bash calls; two PostToolBatch handlers print additionalContext (A slow 0.5 s, B fast); a PostToolUse handler prints additionalContext for each call. How are they placed/joined?",
           {"PostToolBatch": [{"hooks": [hook("batch_ctx_a_slow", "--sleep 0.5", "--stdout " + js(hso("PostToolBatch", additionalContext="BATCH_CTX_A_SENTINEL"))),
                                         hook("batch_ctx_b_fast", "--stdout " + js(hso("PostToolBatch", additionalContext="BATCH_CTX_B_SENTINEL")))]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_ctx", "--stdout " + js(hso("PostToolUse", additionalContext="POST_CTX_SENTINEL")))]}]},
           BATCH_TURNS, sentinels=["BATCH_CTX_A_SENTINEL", "BATCH_CTX_B_SENTINEL", "POST_CTX_SENTINEL"])
write_case("r3_post_tool_batch_posttooluse_ctx_only",
           "Control: batch of two Bash calls, only a PostToolUse handler printing additionalContext (no PostToolBatch hook). Placement?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_ctx", "--stdout " + js(hso("PostToolUse", additionalContext="POST_CTX_SENTINEL")))]}]},
           BATCH_TURNS, sentinels=["POST_CTX_SENTINEL"])
write_case("r3_post_tool_batch_ctx_two_handlers",
           "Control: batch of two Bash calls, two PostToolBatch handlers print additionalContext (A slow 0.5 s, B fast), no PostToolUse output. Placement / join?",
           {"PostToolBatch": [{"hooks": [hook("batch_ctx_a_slow", "--sleep 0.5", "--stdout " + js(hso("PostToolBatch", additionalContext="BATCH_CTX_A_SENTINEL"))),
                                         hook("batch_ctx_b_fast", "--stdout " + js(hso("PostToolBatch", additionalContext="BATCH_CTX_B_SENTINEL")))]}]},
           BATCH_TURNS, sentinels=["BATCH_CTX_A_SENTINEL", "BATCH_CTX_B_SENTINEL"])

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
write_case("r3_instructions_loaded_ctx_only",
           "InstructionsLoaded hook prints ONLY hookSpecificOutput.additionalContext (no sleep). Is the JSON accepted? Does the context reach the model?",
           {"InstructionsLoaded": [{"hooks": [hook("il_ctx", "--stdout " + js(hso("InstructionsLoaded", additionalContext="IL_CTX_SENTINEL ctx")))]}]},
           IL_TURNS, workspace_files=IL_FILES, sentinels=["IL_CTX_SENTINEL"], settle_s=1)

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
           "429 with CLAUDE_CODE_MAX_RETRIES=2 (every retry fails: same turn index): how many attempts, what spacing, does StopFailure fire once? (A first run with default retries was still retrying at the 120 s timeout; see FINDINGS.md.)",
           SF_HOOKS, [{"error": {"status": 429, "type": "rate_limit_error", "message": "SF_MSG_SENTINEL rate limited", "headers": {"retry-after": "0"}}}],
           env={"CLAUDE_CODE_MAX_RETRIES": "2"}, timeout=60)
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

# ===================================================== 8. TaskCreated / TaskCompleted (TaskCreate / TaskUpdate tools)
TASK_TURNS = [tool("TaskCreate", "Creating a task.", subject="TASK_SUBJECT_SENTINEL write docs", description="TASK_DESC_SENTINEL the long description", activeForm="Writing docs"),
              tool("TaskUpdate", "Completing it.", taskId="1", status="completed"),
              FINAL]
TASK_REC = {"PreToolUse": [{"matcher": "Task.*", "hooks": [hook("pre_task")]}],
            "PostToolUse": [{"matcher": "Task.*", "hooks": [hook("post_task")]}]}
write_case("r3_task_created_completed",
           "The fake model calls TaskCreate then TaskUpdate(status=completed). TaskCreated / TaskCompleted payloads? Order vs Pre/PostToolUse?",
           dict(TASK_REC, TaskCreated=[{"hooks": [hook("task_created")]}], TaskCompleted=[{"hooks": [hook("task_completed")]}]),
           TASK_TURNS)
write_case("r3_task_created_exit2",
           "TaskCreated exits 2 with stderr. Is the task rolled back? What does the model get? Does the later TaskUpdate work?",
           dict(TASK_REC, TaskCreated=[{"hooks": [hook("task_created", "--exit 2", "--stderr 'TC_EXIT2_SENTINEL stderr'")]}],
                TaskCompleted=[{"hooks": [hook("task_completed")]}]),
           TASK_TURNS, sentinels=["TC_EXIT2_SENTINEL"])
write_case("r3_task_created_block",
           "TaskCreated prints decision block + reason; a second handler prints additionalContext.",
           dict(TASK_REC, TaskCreated=[{"hooks": [hook("task_created_block", "--stdout " + js({"decision": "block", "reason": "TC_BLOCK_SENTINEL reason"})),
                                                  hook("task_created_ctx", "--stdout " + js(hso("TaskCreated", additionalContext="TC_CTX_SENTINEL ctx")))]}]),
           TASK_TURNS, sentinels=["TC_BLOCK_SENTINEL", "TC_CTX_SENTINEL"])
write_case("r3_task_completed_exit2",
           "TaskCompleted exits 2 with stderr. Is the completion refused? What does the model get?",
           dict(TASK_REC, TaskCompleted=[{"hooks": [hook("task_completed", "--exit 2", "--stderr 'TK_EXIT2_SENTINEL stderr'")]}]),
           TASK_TURNS, sentinels=["TK_EXIT2_SENTINEL"])
write_case("r3_task_completed_json",
           "TaskCompleted prints {continue:false, stopReason} (docs: TeammateIdle/TaskCompleted honour exit 2 or continue:false); a second handler prints additionalContext.",
           dict(TASK_REC, TaskCompleted=[{"hooks": [hook("task_completed_stop", "--stdout " + js({"continue": False, "stopReason": "TK_STOP_SENTINEL"})),
                                                    hook("task_completed_ctx", "--stdout " + js(hso("TaskCompleted", additionalContext="TK_CTX_SENTINEL ctx")))]}]),
           TASK_TURNS, sentinels=["TK_STOP_SENTINEL", "TK_CTX_SENTINEL"])

# ===================================================== 9. CwdChanged / FileChanged
write_case("r3_cwd_changed",
           "Bash `cd sub && pwd` (inside the project), then `pwd`, then `cd /tmp && pwd`, then `pwd`. CwdChanged payloads? Does the Bash cwd persist?",
           {"CwdChanged": [{"hooks": [hook("cwd_changed", "--dump-env")]}], "PostToolUse": [POST_REC]},
           [bash("cd sub && pwd", desc="cd sub"), bash("pwd", desc="pwd after cd sub"), bash("cd /tmp && pwd", desc="cd tmp"),
            bash("pwd", desc="pwd after cd tmp"), FINAL],
           workspace_files={"sub/keep.txt": "x\n"}, max_turns=12)
write_case("r3_cwd_changed_outputs",
           "CwdChanged hook exits 2 with stderr; sibling prints additionalContext + plain stdout. Any effect / model-visible text?",
           {"CwdChanged": [{"hooks": [hook("cwd_exit2", "--exit 2", "--stderr 'CWD_EXIT2_SENTINEL'"),
                                      hook("cwd_ctx", "--stdout " + js(hso("CwdChanged", additionalContext="CWD_CTX_SENTINEL"))),
                                      hook("cwd_plain", "--stdout 'CWD_PLAIN_SENTINEL'")]}]},
           [bash("cd sub && pwd", desc="cd sub"), bash("pwd", desc="pwd"), FINAL],
           workspace_files={"sub/keep.txt": "x\n"}, sentinels=["CWD_EXIT2_SENTINEL", "CWD_CTX_SENTINEL", "CWD_PLAIN_SENTINEL"])
write_case("r3_cwd_changed_slow",
           "CwdChanged hook sleeps 1 s: does the loop wait for it before the next API request?",
           {"CwdChanged": [{"hooks": [hook("cwd_changed_slow", "--sleep 1")]}]},
           [bash("cd sub && pwd", desc="cd sub"), bash("pwd", desc="pwd"), FINAL],
           workspace_files={"sub/keep.txt": "x\n"}, settle_s=2)
write_case("r3_file_changed",
           "FileChanged with matcher `notes.txt|new.txt` (notes.txt exists at start). Bash appends to notes.txt, sleeps, Write creates new.txt, Bash rm new.txt, sleep. Does it fire in -p, with which payload?",
           {"FileChanged": [{"matcher": "notes.txt|new.txt", "hooks": [hook("file_changed")]}],
            "SessionStart": [{"hooks": [hook("session_start")]}]},
           [bash("echo more >> notes.txt; sleep 2; echo wrote", desc="append notes"),
            tool("Write", file_path="@WS@/new.txt", content="new file\n"),
            bash("sleep 2; rm new.txt; sleep 2; echo removed", desc="rm new"),
            bash("sleep 1; echo done", desc="wait"), FINAL],
           workspace_files={"notes.txt": "initial\n"}, max_turns=12, settle_s=1)
write_case("r3_file_changed_watchpaths",
           "SessionStart returns hookSpecificOutput.watchPaths [<WS>/watched.txt]; FileChanged without matcher. Bash writes watched.txt. Fires?",
           {"FileChanged": [{"hooks": [hook("file_changed")]}],
            "SessionStart": [{"hooks": [hook("session_start", "--stdout " + js(hso("SessionStart", watchPaths=["@WS@/watched.txt"])))]}]},
           [bash("echo a > watched.txt; sleep 2; echo wrote", desc="write watched"), bash("sleep 1; echo done", desc="wait"), FINAL],
           workspace_files={"watched.txt": "initial\n"}, max_turns=12, settle_s=1)
write_case("r3_file_changed_nomatcher_control",
           "Control for _watchpaths: FileChanged without matcher and WITHOUT watchPaths; Bash writes watched.txt. Fires?",
           {"FileChanged": [{"hooks": [hook("file_changed")]}]},
           [bash("echo a > watched.txt; sleep 2; echo wrote", desc="write watched"), bash("sleep 1; echo done", desc="wait"), FINAL],
           workspace_files={"watched.txt": "initial\n"}, max_turns=12, settle_s=1)
write_case("r3_file_changed_outputs",
           "FileChanged(notes.txt): exit 2 + stderr; additionalContext JSON; plain stdout; env dump. Anything model-visible?",
           {"FileChanged": [{"matcher": "notes.txt", "hooks": [hook("fc_exit2", "--exit 2", "--stderr 'FC_EXIT2_SENTINEL'", "--dump-env"),
                                                             hook("fc_ctx", "--stdout " + js(hso("FileChanged", additionalContext="FC_CTX_SENTINEL"))),
                                                             hook("fc_plain", "--stdout 'FC_PLAIN_SENTINEL'")]}]},
           [bash("echo more >> notes.txt; sleep 2; echo wrote", desc="append notes"), bash("sleep 1; echo done", desc="wait"), FINAL],
           workspace_files={"notes.txt": "initial\n"}, max_turns=12, settle_s=1,
           sentinels=["FC_EXIT2_SENTINEL", "FC_CTX_SENTINEL", "FC_PLAIN_SENTINEL"])

# ===================================================== 10. ConfigChange
CC_NEW = {"permissions": {"allow": ["Bash(echo:*)"]}, "hooks": {"ConfigChange": [{"hooks": [{"type": "command", "command": "@HOOK@ --label config_change --out @OUT@"}]}]}}
write_case("r3_config_change",
           "A Bash call rewrites .claude/settings.json (adds a permission rule, keeps the hooks) then sleeps 2 s; another Bash edits .claude/settings.local.json. ConfigChange payloads?",
           {"ConfigChange": [{"hooks": [hook("config_change")]}], "PostToolUse": [POST_REC]},
           [bash("@PY@ -c " + q("import json;p='.claude/settings.json';d=json.load(open(p));d['permissions']={'allow':['Bash(echo:*)']};json.dump(d,open(p,'w'),indent=2)") + "; sleep 2; echo edited", desc="edit project settings"),
            bash("echo '{\"env\": {\"FOO\": \"1\"}}' > .claude/settings.local.json; sleep 2; echo edited", desc="write local settings"),
            bash("sleep 1; echo done", desc="wait"), FINAL], max_turns=12, settle_s=1)
write_case("r3_config_change_exit2",
           "ConfigChange exits 2 with stderr (and a sibling prints decision block). Is the change rejected? Does the model see anything?",
           {"ConfigChange": [{"hooks": [hook("config_change_exit2", "--exit 2", "--stderr 'CC_EXIT2_SENTINEL'"),
                                        hook("config_change_block", "--stdout " + js({"decision": "block", "reason": "CC_BLOCK_SENTINEL"}))]}],
            "PostToolUse": [POST_REC]},
           [bash("@PY@ -c " + q("import json;p='.claude/settings.json';d=json.load(open(p));d['env']={'CC_NEW_VAR':'yes'};json.dump(d,open(p,'w'),indent=2)") + "; sleep 2; echo edited", desc="edit project settings"),
            bash("sleep 1; echo CC_NEW_VAR=$CC_NEW_VAR", desc="check env"), FINAL], max_turns=12,
           sentinels=["CC_EXIT2_SENTINEL", "CC_BLOCK_SENTINEL"], settle_s=1)
write_case("r3_config_change_hook_added",
           "Mid-session a Bash call ADDS a PostToolUse hook to .claude/settings.json (sleep 2). Does the new hook fire for the next Bash call (hot reload)?",
           {"ConfigChange": [{"hooks": [hook("config_change")]}]},
           [bash("@PY@ -c " + q("import json;p='.claude/settings.json';d=json.load(open(p));d['hooks']['PostToolUse']=[{'matcher':'Bash','hooks':[{'type':'command','command':'@HOOK@ --label post_added_later --out @OUT@'}]}];json.dump(d,open(p,'w'),indent=2)") + "; sleep 2; echo edited", desc="add hook"),
            bash("echo after", desc="after"), FINAL], max_turns=12, settle_s=1)

write_case("r3_config_change_env_control",
           "Control for _exit2: the same settings edit (env CC_NEW_VAR) with a non-blocking ConfigChange hook. Does the next Bash see CC_NEW_VAR?",
           {"ConfigChange": [{"hooks": [hook("config_change")]}]},
           [bash("@PY@ -c " + q("import json;p='.claude/settings.json';d=json.load(open(p));d['env']={'CC_NEW_VAR':'yes'};json.dump(d,open(p,'w'),indent=2)") + "; sleep 2; echo edited", desc="edit project settings"),
            bash("sleep 1; echo CC_NEW_VAR=$CC_NEW_VAR", desc="check env"), FINAL], max_turns=12, settle_s=1)
write_case("r3_config_change_exit2_hook_added",
           "ConfigChange exits 2 while the edit ADDS a PostToolUse hook. Is the new hook applied anyway (i.e. is the change really rejected)?",
           {"ConfigChange": [{"hooks": [hook("config_change_exit2", "--exit 2", "--stderr 'CC_EXIT2_SENTINEL'")]}]},
           [bash("@PY@ -c " + q("import json;p='.claude/settings.json';d=json.load(open(p));d['hooks']['PostToolUse']=[{'matcher':'Bash','hooks':[{'type':'command','command':'@HOOK@ --label post_added_later --out @OUT@'}]}];json.dump(d,open(p,'w'),indent=2)") + "; sleep 2; echo edited", desc="add hook"),
            bash("echo after", desc="after"), FINAL], max_turns=12, settle_s=1, sentinels=["CC_EXIT2_SENTINEL"])


# ===================================================== 11. misc cheap events
MD_TURNS = [{"text": "MD_LINE1 first line\nMD_LINE2 second line\n", "tool_use": {"name": "Bash", "input": {"command": "echo hi", "description": "hi"}}},
            {"text": "MD_FINAL final answer line one\nline two"}]
write_case("r3_message_display",
           "MessageDisplay recorder: does it fire in -p for streamed assistant text? Payload (turn_id, message_id, index, final, delta)?",
           {"MessageDisplay": [{"hooks": [hook("md")]}]}, MD_TURNS)
write_case("r3_message_display_outputs",
           "MessageDisplay returns hookSpecificOutput.displayContent (and a sibling exits 2). Does the -p result / the history sent to the model change?",
           {"MessageDisplay": [{"hooks": [hook("md_replace", "--stdout " + js(hso("MessageDisplay", displayContent="MD_REPLACED_SENTINEL"))),
                                          hook("md_exit2", "--exit 2", "--stderr 'MD_EXIT2_SENTINEL'")]}]},
           MD_TURNS, sentinels=["MD_REPLACED_SENTINEL", "MD_EXIT2_SENTINEL", "MD_FINAL"])
write_case("r3_worktree_create",
           "EnterWorktree{name:wt1} with a WorktreeCreate hook printing the path of an existing dir (workspace not a git repo), then ExitWorktree{action:remove} with a WorktreeRemove hook. Payloads? Does the session cwd move?",
           {"WorktreeCreate": [{"hooks": [hook("wt_create", "--stdout '@WS@/wt1'")]}],
            "WorktreeRemove": [{"hooks": [hook("wt_remove")]}],
            "CwdChanged": [{"hooks": [hook("cwd_changed")]}],
            "PreToolUse": [{"matcher": ".*Worktree", "hooks": [hook("pre_wt")]}]},
           [{"text": "Entering a worktree.", "tool_use": {"name": "EnterWorktree", "input": {"name": "wt1"}}}, bash("pwd", desc="pwd in worktree"),
            tool("ExitWorktree", "Leaving.", action="remove", discard_changes=True), bash("pwd", desc="pwd after"), FINAL],
           prompt="Please work in a worktree.", workspace_files={"wt1/.keep": "", "CLAUDE.md": "Always work in a worktree.\n"}, max_turns=12, settle_s=1)
write_case("r3_worktree_create_exit2",
           "WorktreeCreate exits 2 with stderr. What does the EnterWorktree tool_result say?",
           {"WorktreeCreate": [{"hooks": [hook("wt_create", "--exit 2", "--stderr 'WT_EXIT2_SENTINEL'")]}]},
           [{"text": "Entering a worktree.", "tool_use": {"name": "EnterWorktree", "input": {"name": "wt1"}}}, FINAL],
           prompt="Please work in a worktree.", workspace_files={"wt1/.keep": ""}, sentinels=["WT_EXIT2_SENTINEL"])
write_case("r3_permission_denied_auto",
           "--permission-mode auto (no bypass): does auto mode engage offline, and does PermissionDenied fire for a Bash command?",
           {"PermissionDenied": [{"hooks": [hook("perm_denied")]}], "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre")]}],
            "PermissionRequest": [{"hooks": [hook("perm_request")]}]},
           [bash("echo ran > @OUT@/marker_tool_ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi", desc="write marker"), FINAL],
           permission="default", extra_args=["--permission-mode", "auto"])
write_case("r3_permission_denied_auto_46",
           "As _auto but with --model claude-sonnet-4-6 (auto mode is refused for sonnet-4-5). Does the auto classifier run against the fake API, and does PermissionDenied fire?",
           {"PermissionDenied": [{"hooks": [hook("perm_denied")]}], "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre")]}],
            "PermissionRequest": [{"hooks": [hook("perm_request")]}]},
           [bash("echo ran > @OUT@/marker_tool_ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi", desc="write marker"), FINAL],
           permission="default", extra_args=["--permission-mode", "auto"], model="claude-sonnet-4-6")
CLASSIFIER_BLOCK = "<block>yes</block><reason>[Irreversible Local Destruction] PD_REASON_SENTINEL rm -rf is destructive</reason>"
write_case("r3_permission_denied_classifier",
           "auto mode (sonnet-4-6); every classifier side request answers `<block>yes</block><reason>[Irreversible Local Destruction] PD_REASON_SENTINEL …</reason>`. PermissionDenied payload `reason`? Model-visible text?",
           {"PermissionDenied": [{"hooks": [hook("perm_denied")]}], "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre")]}],
            "PostToolUse": [POST_REC]},
           [bash("echo ran > @OUT@/marker_tool_ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi", desc="write marker"), FINAL],
           permission="default", extra_args=["--permission-mode", "auto"], model="claude-sonnet-4-6", side_text=CLASSIFIER_BLOCK,
           sentinels=["PD_REASON_SENTINEL"])
write_case("r3_permission_denied_retry",
           "As _classifier, but the PermissionDenied hook returns hookSpecificOutput.retry:true (a sibling exits 2 with stderr, another prints additionalContext). What changes for the model?",
           {"PermissionDenied": [{"hooks": [hook("pd_retry", "--stdout " + js(hso("PermissionDenied", retry=True))),
                                             hook("pd_exit2", "--exit 2", "--stderr 'PD_EXIT2_SENTINEL'")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre")]}]},
           [bash("echo ran > @OUT@/marker_tool_ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi", desc="write marker"), FINAL],
           permission="default", extra_args=["--permission-mode", "auto"], model="claude-sonnet-4-6", side_text=CLASSIFIER_BLOCK,
           sentinels=["PD_REASON_SENTINEL", "PD_EXIT2_SENTINEL"])
write_case("r3_permission_denied_pre_allow",
           "auto mode, classifier would block, but PreToolUse returns permissionDecision allow. Does the classifier still run / PermissionDenied fire?",
           {"PermissionDenied": [{"hooks": [hook("perm_denied")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_allow", "--stdout " + js(hso("PreToolUse", permissionDecision="allow", permissionDecisionReason="ok")))]}]},
           [bash("echo ran > @OUT@/marker_tool_ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi", desc="write marker"), FINAL],
           permission="default", extra_args=["--permission-mode", "auto"], model="claude-sonnet-4-6", side_text=CLASSIFIER_BLOCK)
write_case("r3_directory_added",
           "`--add-dir <WS>/extra` flag and a `/add-dir` prompt: does DirectoryAdded fire in -p?",
           {"DirectoryAdded": [{"hooks": [hook("dir_added")]}]},
           [FINAL], extra_args=["--add-dir", "@WS@/extra"], workspace_files={"extra/.keep": "", "extra2/.keep": ""})
write_case("r3_directory_added_slash",
           "`-p '/add-dir <WS>/extra2'`: does the slash command work in -p and fire DirectoryAdded?",
           {"DirectoryAdded": [{"hooks": [hook("dir_added")]}]},
           [FINAL], prompt="/add-dir @WS@/extra2", workspace_files={"extra/.keep": "", "extra2/.keep": ""})


# ===================================================== 12. PreCompact / PostCompact (fake_api: usage_input_tokens, compact_match)
COMPACT_HOOKS = {"PreCompact": [{"hooks": [hook("pre_compact")]}], "PostCompact": [{"hooks": [hook("post_compact")]}],
                 "SessionStart": [{"hooks": [hook("session_start")]}], "Stop": [STOP_REC]}
write_case("r3_compact_auto",
           "Model claude-sonnet-4-6 (with sonnet-4-5 the autocompact check returns early and nothing happens). The second reply reports usage.input_tokens=175000 (above the 167000 threshold) so auto-compaction should run before the next request. PreCompact/PostCompact payloads? SessionStart(compact)?",
           COMPACT_HOOKS, [bash("echo one", desc="one"), dict(bash("echo two", desc="two"), usage_input_tokens=175000),
                           bash("echo three", desc="three"), FINAL],
           turn_selection="sequential", compact_match="create a detailed summary of the conversation so far",
           compact_text="<analysis>a</analysis>\n<summary>COMPACT_SUMMARY_SENTINEL fake summary</summary>",
           side_text="<summary>COMPACT_SUMMARY_SENTINEL fake summary</summary>", sentinels=["COMPACT_SUMMARY_SENTINEL"],
           model="claude-sonnet-4-6")
write_case("r3_compact_manual",
           "`-p /compact` on a fresh session: does manual compaction run in -p, and fire PreCompact(manual)?",
           COMPACT_HOOKS, [FINAL], prompt="/compact", side_text="<summary>COMPACT_SUMMARY_SENTINEL fake summary</summary>")

COMPACT_SCRIPT = dict(turn_selection="sequential", compact_match="create a detailed summary of the conversation so far",
                      compact_text="<analysis>a</analysis>\n<summary>COMPACT_SUMMARY_SENTINEL fake summary</summary>",
                      model="claude-sonnet-4-6")
COMPACT_TURNS = [bash("echo one", desc="one"), dict(bash("echo two", desc="two"), usage_input_tokens=175000),
                 bash("echo three", desc="three"), FINAL]
write_case("r3_compact_pre_exit2",
           "Auto-compaction as in r3_compact_auto; PreCompact exits 2 with stderr. Is compaction blocked? What happens to the request / result?",
           {"PreCompact": [{"hooks": [hook("pre_compact", "--exit 2", "--stderr 'PRECOMPACT_EXIT2_SENTINEL'")]}],
            "PostCompact": [{"hooks": [hook("post_compact")]}], "SessionStart": [{"hooks": [hook("session_start")]}]},
           COMPACT_TURNS, sentinels=["PRECOMPACT_EXIT2_SENTINEL", "COMPACT_SUMMARY_SENTINEL"], **COMPACT_SCRIPT)
write_case("r3_compact_pre_block",
           "Auto-compaction; PreCompact prints {decision:block, reason}.",
           {"PreCompact": [{"hooks": [hook("pre_compact", "--stdout " + js({"decision": "block", "reason": "PRECOMPACT_BLOCK_SENTINEL"}))]}],
            "PostCompact": [{"hooks": [hook("post_compact")]}]},
           COMPACT_TURNS, sentinels=["PRECOMPACT_BLOCK_SENTINEL", "COMPACT_SUMMARY_SENTINEL"], **COMPACT_SCRIPT)
write_case("r3_compact_outputs",
           "Auto-compaction; PreCompact prints plain stdout; SessionStart(matcher compact) prints additionalContext + plain stdout; PostCompact exits 2 + prints nothing. Where do these texts land?",
           {"PreCompact": [{"matcher": "auto", "hooks": [hook("pre_compact_plain", "--stdout 'PRECOMPACT_PLAIN_SENTINEL'")]},
                           {"matcher": "manual", "hooks": [hook("pre_compact_manual_only")]}],
            "PostCompact": [{"hooks": [hook("post_compact_exit2", "--exit 2", "--stderr 'POSTCOMPACT_EXIT2_SENTINEL'")]}],
            "SessionStart": [{"matcher": "compact", "hooks": [hook("ss_compact_ctx", "--stdout " + js(hso("SessionStart", additionalContext="SS_COMPACT_CTX_SENTINEL"))),
                                                              hook("ss_compact_plain", "--stdout 'SS_COMPACT_PLAIN_SENTINEL'")]},
                             {"matcher": "startup", "hooks": [hook("ss_startup")]}]},
           COMPACT_TURNS, sentinels=["PRECOMPACT_PLAIN_SENTINEL", "POSTCOMPACT_EXIT2_SENTINEL", "SS_COMPACT_CTX_SENTINEL", "SS_COMPACT_PLAIN_SENTINEL", "COMPACT_SUMMARY_SENTINEL"],
           **COMPACT_SCRIPT)
write_case("r3_compact_manual_args",
           "`-p '/compact KEEP_SENTINEL focus on tests'` on a fresh session: PreCompact custom_instructions?",
           COMPACT_HOOKS, [FINAL], prompt="/compact KEEP_SENTINEL focus on tests")


# ===================================================== 13. effort field (models that support effort)
EFFORT_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
                 "Stop", "SessionEnd", "CwdChanged", "TaskCreated", "InstructionsLoaded", "MessageDisplay"]
EFFORT_TURNS = [bash("cd sub && pwd", desc="cd"), bash("exit 3", desc="fail"),
                {"text": "Creating a task.", "tool_use": {"name": "TaskCreate", "input": {"subject": "s", "description": "d"}}}, FINAL]
write_case("r3_effort_fields",
           "--model claude-sonnet-4-6: which events' payloads carry `effort`, and where in the field order?",
           {ev: [{"hooks": [hook("ev_" + ev)]}] for ev in EFFORT_EVENTS},
           EFFORT_TURNS, model="claude-sonnet-4-6", workspace_files={"sub/keep.txt": "x\n", "CLAUDE.md": "memo\n"})
write_case("r3_effort_fields_low",
           "Same with `--effort low`: does effort.level follow the flag?",
           {ev: [{"hooks": [hook("ev_" + ev)]}] for ev in ("PreToolUse", "Stop", "UserPromptSubmit")},
           [marker_bash(), FINAL], model="claude-sonnet-4-6", extra_args=["--effort", "low"])


# ===================================================== 14. Elicitation / ElicitationResult (bin/mcp_server.py elicit* tools)
ELICIT_MCP = json.dumps({"mcpServers": {"srv": {"command": "@PY@",
                         "args": ["@HARNESS@/bin/mcp_server.py", "--tools", "elicit_tool", "--log", "@OUT@/mcp_server.jsonl"]}}})
ELICIT_TURNS = [{"text": "Calling MCP.", "tool_use": {"name": "mcp__srv__elicit_tool", "input": {"text": "ELICIT_MESSAGE_SENTINEL please provide a name"}}}, FINAL]
ELICIT_ARGS = ["--mcp-config", ELICIT_MCP, "--strict-mcp-config"]
write_case("r3_elicitation",
           "An MCP tool sends elicitation/create during tools/call. Elicitation hook records only; ElicitationResult recorder. What does -p do without a UI? Payloads?",
           {"Elicitation": [{"hooks": [hook("elicitation")]}], "ElicitationResult": [{"hooks": [hook("elicitation_result")]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60)
write_case("r3_elicitation_accept",
           "Elicitation hook answers hookSpecificOutput {action:accept, content:{name:ELICIT_NAME_SENTINEL}}. Does the MCP server get it? ElicitationResult payload?",
           {"Elicitation": [{"matcher": "srv", "hooks": [hook("elicitation", "--stdout " + js(hso("Elicitation", action="accept", content={"name": "ELICIT_NAME_SENTINEL"})))]}],
            "ElicitationResult": [{"hooks": [hook("elicitation_result")]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60, sentinels=["ELICIT_NAME_SENTINEL"])
write_case("r3_elicitation_exit2",
           "Elicitation hook exits 2 with stderr (docs: deny/decline).",
           {"Elicitation": [{"hooks": [hook("elicitation", "--exit 2", "--stderr 'ELICIT_EXIT2_SENTINEL'")]}],
            "ElicitationResult": [{"hooks": [hook("elicitation_result")]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60, sentinels=["ELICIT_EXIT2_SENTINEL"])

write_case("r3_notification_elicitation",
           "Notification recorder (plus exit-2 / additionalContext siblings) around an MCP elicitation in -p (bundle has notificationType elicitation_response / elicitation_complete). Does Notification fire in -p?",
           {"Notification": [{"hooks": [hook("notification")]}],
            "Elicitation": [{"hooks": [hook("elicitation", "--stdout " + js(hso("Elicitation", action="accept", content={"name": "N"})))]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60, settle_s=1)
write_case("r3_notification_elicitation_nohook",
           "Notification recorder around an MCP elicitation with NO Elicitation hook (auto-cancel in -p).",
           {"Notification": [{"hooks": [hook("notification")]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60, settle_s=1)

write_case("r3_notification_outputs",
           "Notification (elicitation_response, no Elicitation hook): one handler prints hookSpecificOutput.additionalContext, one exits 2, one prints plain stdout. Anything model-visible?",
           {"Notification": [{"matcher": "elicitation_response", "hooks": [hook("n_ctx", "--stdout " + js(hso("Notification", additionalContext="NOTIF_CTX_SENTINEL"))),
                                                                         hook("n_exit2", "--exit 2", "--stderr 'NOTIF_EXIT2_SENTINEL'"),
                                                                         hook("n_plain", "--stdout 'NOTIF_PLAIN_SENTINEL'")]},
                             {"matcher": "idle_prompt", "hooks": [hook("n_idle_only")]}]},
           ELICIT_TURNS, extra_args=ELICIT_ARGS, timeout=60, settle_s=1,
           sentinels=["NOTIF_CTX_SENTINEL", "NOTIF_EXIT2_SENTINEL", "NOTIF_PLAIN_SENTINEL"])


# ===================================================== 15. SessionStart resume / fork (run_case.sh "second_run")
SID = "11111111-2222-4333-8444-555555555555"
RESUME_HOOKS = {"SessionStart": [{"hooks": [hook("session_start")]},
                                 {"matcher": "resume", "hooks": [hook("ss_resume_ctx", "--stdout " + js(hso("SessionStart", additionalContext="SS_RESUME_CTX_SENTINEL")))]}],
                "SessionEnd": [{"hooks": [hook("session_end")]}], "UserPromptSubmit": [{"hooks": [hook("ups")]}]}
RESUME_TURNS = [{"text": "First answer."}, {"text": "Second answer."}]
write_case("r3_session_resume_continue",
           "Run 1: -p 'first prompt'. Run 2 in the same HOME/workspace: -p --continue 'second prompt'. SessionStart source / payload on the second run? Where does a resume-matcher additionalContext go?",
           RESUME_HOOKS, RESUME_TURNS, prompt="first prompt", second_run={"prompt": "second prompt", "args": ["--continue"]},
           sentinels=["SS_RESUME_CTX_SENTINEL"])
write_case("r3_session_resume_id",
           "Run 1 with --session-id <uuid>; run 2 with --resume <uuid>.",
           RESUME_HOOKS, RESUME_TURNS, prompt="first prompt", extra_args=["--session-id", SID],
           second_run={"prompt": "second prompt", "args": ["--resume", SID]}, sentinels=["SS_RESUME_CTX_SENTINEL"])
write_case("r3_session_fork",
           "Run 1 with --session-id <uuid>; run 2 with --resume <uuid> --fork-session (docs: source `fork` since 2.1.214, was `resume`).",
           dict(RESUME_HOOKS, SessionStart=RESUME_HOOKS["SessionStart"] + [{"matcher": "fork", "hooks": [hook("ss_fork_only")]}]),
           RESUME_TURNS, prompt="first prompt", extra_args=["--session-id", SID],
           second_run={"prompt": "second prompt", "args": ["--resume", SID, "--fork-session"]})


if __name__ == "__main__":
    print("wrote", len([d for d in os.listdir(CASES) if d.startswith("r3_")]), "r3 cases")
