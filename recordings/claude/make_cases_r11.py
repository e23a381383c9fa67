"""Round-11 cases (cases/r11_*).

Q1: long (12,000-char) answers of async hooks: config `async: true`, a first stdout line
    `{"async":true}`, and `asyncRewake: true` + exit 2 (plain -p, and stream-json input where
    asyncRewake is really backgrounded).  Sync control for comparison.
Q2: PostToolUse `hookSpecificOutput.updatedToolOutput` on an MCP tool (string, array of content
    blocks, {"content": [...]} object, a number, null) + a control without it.

Harness additions: bin/hook.py --stderr-file F (round 11); r11_extract.py writes
cases/<case>/r11_detail.json (full, unclipped text of the API user messages, persisted files).
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def hook(label, *flags, **fields):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    h = {"type": "command", "command": cmd}
    h.update(fields)
    return h


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def big(prefix, n=12000, width=100):
    """n characters, a line break every `width` chars (each line width-1 chars + "\\n"), no trailing
    newline; starts with <prefix>_BEGIN and ends with <prefix>_END_MK."""
    lines, i = [], 0
    total = 0
    while True:
        head = "%s_L%03d_" % (prefix, i)
        if i == 0:
            head = "%s_BEGIN_L000_" % prefix
        rest = n - total
        if rest <= width:          # last line, no newline
            tail = "%s_END_MK" % prefix
            line = head + "x" * (rest - len(head) - len(tail)) + tail
            lines.append(line)
            break
        lines.append(head + "x" * (width - 1 - len(head)) + "\n")
        total += width
        i += 1
    s = "".join(lines)
    assert len(s) == n, len(s)
    return s


def write_case(name, question, hooks, turns, prompt="Run the command please.", files=None, sentinels=(),
               extra_args=(), **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True,
            "extra_args": list(extra_args) + DEBUG}
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump({"hooks": hooks}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    json.dump({"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"},
              open(os.path.join(d, "script.json"), "w"), indent=2)
    for fn, content in (files or {}).items():
        with open(os.path.join(d, fn), "w", encoding="utf-8") as f:
            f.write(content)


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}
# r6 convention: the hook fires only for the first call (`if: Bash(date *)`); the second call is slow
# enough for the async hook to finish; the third shows where a late delivery would land.
TURNS3 = [bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="first"),
          bash("sleep 2; echo second", desc="second"), bash("echo third", desc="third"), FINAL]
IF1 = {"if": "Bash(date *)"}

# ======================================================================== Q1
CTX = big("ACTX")          # additionalContext text
files_ctx = {"ctx.json": compact(hso("PostToolUse", additionalContext=CTX))}
PRE_CTX = big("PCTX")
files_pre = {"ctx.json": compact(hso("PreToolUse", additionalContext=PRE_CTX))}
OUT = big("AOUT")          # plain stdout
SYS = big("ASYS")          # systemMessage
ERR = big("AERR")          # stderr (asyncRewake)
RCTX = big("RCTX")         # asyncRewake exit-0 additionalContext
SYNC = big("SCTX")         # sync control

write_case("r11_sync_post_ctx12k",
           "CONTROL: synchronous PostToolUse additionalContext of 12,000 chars (line break every 100). "
           "Expect the FINDINGS §36e <persisted-output> wrapper.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_sync", "--stdout-file @CASE@/ctx.json", **IF1)]}]},
           TURNS3, files={"ctx.json": compact(hso("PostToolUse", additionalContext=SYNC))},
           sentinels=["SCTX_BEGIN", "SCTX_END_MK", "persisted-output"])

write_case("r11_async_cfg_post_ctx12k",
           "PostToolUse hook with `async: true` prints (after 0.5 s) a JSON answer whose additionalContext has "
           "12,000 chars (line break every 100). How does the model get it: whole, cut, or <persisted-output>?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_async", "--sleep 0.5",
                                                              "--stdout-file @CASE@/ctx.json", **IF1, **{"async": True})]}]},
           TURNS3, files=files_ctx, sentinels=["ACTX_BEGIN", "ACTX_END_MK", "persisted-output"])

write_case("r11_async_first_line_post_ctx12k",
           "PostToolUse hook (not async in config) prints first line {\"async\":true}, sleeps 0.5 s, then a JSON "
           "answer whose additionalContext has 12,000 chars. How does the model get it?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_first_line", "--steps " + q(compact(
               [["out", "{\"async\":true}\n"], ["sleep", 0.5]])), "--stdout-file @CASE@/ctx.json", **IF1)]}]},
           TURNS3, files=files_ctx, sentinels=["ACTX_BEGIN", "ACTX_END_MK", "persisted-output"])

write_case("r11_async_cfg_pre_ctx12k",
           "PreToolUse hook with `async: true` prints (after 0.5 s) additionalContext of 12,000 chars.",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_async", "--sleep 0.5",
                                                             "--stdout-file @CASE@/ctx.json", **IF1, **{"async": True})]}]},
           TURNS3, files=files_pre, sentinels=["PCTX_BEGIN", "PCTX_END_MK", "persisted-output"])

write_case("r11_async_cfg_post_stdout12k",
           "PostToolUse hook with `async: true` prints 12,000 chars of plain (non-JSON) stdout after 0.5 s.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_async_plain", "--sleep 0.5",
                                                              "--stdout-file @CASE@/out.txt", **IF1, **{"async": True})]}]},
           TURNS3, files={"out.txt": OUT}, sentinels=["AOUT_BEGIN", "AOUT_END_MK", "persisted-output"])

write_case("r11_async_first_line_post_stdout12k",
           "PostToolUse hook prints first line {\"async\":true}, sleeps 0.5 s, then 12,000 chars of plain stdout.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_first_line_plain", "--steps " + q(compact(
               [["out", "{\"async\":true}\n"], ["sleep", 0.5]])), "--stdout-file @CASE@/out.txt", **IF1)]}]},
           TURNS3, files={"out.txt": OUT}, sentinels=["AOUT_BEGIN", "AOUT_END_MK", "persisted-output"])

write_case("r11_async_cfg_post_sysmsg12k",
           "(extra) PostToolUse hook with `async: true` answers a systemMessage of 12,000 chars.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_async_sys", "--sleep 0.5",
                                                              "--stdout-file @CASE@/sys.json", **IF1, **{"async": True})]}]},
           TURNS3, files={"sys.json": compact({"systemMessage": SYS})},
           sentinels=["ASYS_BEGIN", "ASYS_END_MK", "persisted-output"])

write_case("r11_rewake_exit2_stderr12k",
           "PostToolUse `asyncRewake: true` hook sleeps 0.5 s, writes 12,000 chars of stderr and exits 2 (plain -p: "
           "expected NOT backgrounded, so the sync blocking-error path). Exact text the model gets?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("rewake", "--sleep 0.5", "--stderr-file @CASE@/err.txt",
                                                              "--exit 2", **IF1, asyncRewake=True)]}]},
           TURNS3, files={"err.txt": ERR}, sentinels=["AERR_BEGIN", "AERR_END_MK", "persisted-output"])

STREAM_TURNS = [bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="first"),
                bash("sleep 3; echo second", desc="second"),
                {"text": "First final answer."}, {"text": "Second final answer."},
                {"text": "Third final answer."}, {"text": "Fourth final answer."}]
write_case("r11_rewake_exit2_stderr12k_stream",
           "As r11_rewake_exit2_stderr12k but with --input-format stream-json (hasStreamingInput: asyncRewake IS "
           "backgrounded). The hook exits 2 after 1 s with 12,000 chars of stderr while the next tool (sleep 3) "
           "runs; stdin stays open ~10 s (second prompt). Exact task-notification text, and where it lands?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("rewake", "--sleep 1", "--stderr-file @CASE@/err.txt",
                                                              "--exit 2", **IF1, asyncRewake=True)]}]},
           STREAM_TURNS, files={"err.txt": ERR}, stdin_messages=["Run the command please.", [10.0, "SECOND_PROMPT say hi"]],
           sentinels=["AERR_BEGIN", "AERR_END_MK", "persisted-output", "task-notification"], timeout=60)

write_case("r11_rewake_exit0_ctx12k_stream",
           "(extra) stream-json input; `asyncRewake: true` hook sleeps 1 s, answers additionalContext of 12,000 "
           "chars and exits 0. Bundle (pdc) only acts on exit 2: is the context dropped?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("rewake0", "--sleep 1", "--stdout-file @CASE@/ctx.json",
                                                              **IF1, asyncRewake=True)]}]},
           STREAM_TURNS, files={"ctx.json": compact(hso("PostToolUse", additionalContext=RCTX))},
           stdin_messages=["Run the command please.", [10.0, "SECOND_PROMPT say hi"]],
           sentinels=["RCTX_BEGIN", "RCTX_END_MK", "persisted-output"], timeout=60)

# ======================================================================== Q2
MCP_CONFIG = json.dumps({"mcpServers": {"srv": {
    "command": "@PY@", "args": ["@HARNESS@/bin/mcp_server.py", "--tools", "echo_tool", "--log", "@OUT@/mcp_server.jsonl"]}}})
MCP_ARGS = ["--mcp-config", MCP_CONFIG, "--strict-mcp-config"]
MCP_TURNS = [{"text": "Calling MCP.", "tool_use": {"name": "mcp__srv__echo_tool", "input": {"text": "ORIGINAL_MCP_SENTINEL"}}},
             bash("echo after", desc="after"), FINAL]
VARIANTS = [
    ("control", None, "no updatedToolOutput (recording hook only): the original MCP tool_result shape"),
    ("string", "REPLACED_STR_SENTINEL", "(a) a string"),
    ("array", [{"type": "text", "text": "REPLACED_ARR_SENTINEL"}], "(b) an array of MCP content blocks"),
    ("object", {"content": [{"type": "text", "text": "REPLACED_OBJ_SENTINEL"}]}, "(c) an object {content:[...]}"),
    ("number", 42, "(d) a number"),
    ("null", "__NULL__", "(extra) JSON null"),
    ("empty_string", "", "(extra) an empty string"),
    ("array_strings", ["PLAIN_A_SENTINEL", "PLAIN_B_SENTINEL"], "(extra) an array of plain strings (not blocks)"),
    ("bool", True, "(extra) the boolean true"),
]
for key, val, what in VARIANTS:
    if val is None:
        flags = []
    else:
        out = hso("PostToolUse", updatedToolOutput=None if val == "__NULL__" else val)
        flags = ["--stdout " + q(compact(out))]
    write_case("r11_mcp_updated_%s" % key,
               "PostToolUse (matcher mcp__.*) on mcp__srv__echo_tool answers hookSpecificOutput.updatedToolOutput = "
               "%s. Exact tool_result block the model gets? Debug-log notes?" % what,
               {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [hook("post_mcp", *flags)]}],
                "PostToolUseFailure": [{"matcher": "*", "hooks": [hook("post_failure")]}]},
               MCP_TURNS, extra_args=MCP_ARGS,
               sentinels=["ORIGINAL_MCP_SENTINEL", "MCP_RESULT", "REPLACED_", "completed with no output"])
# (extra) the legacy field updatedMCPToolOutput, and both fields at once
for key, fields, what in [
        ("legacy_mcp_string", {"updatedMCPToolOutput": "REPLACED_LEGACY_SENTINEL"}, "updatedMCPToolOutput = a string"),
        ("legacy_mcp_object", {"updatedMCPToolOutput": {"content": [{"type": "text", "text": "REPLACED_LEGACYOBJ_SENTINEL"}]}},
         "updatedMCPToolOutput = {content:[...]}"),
        ("both_fields", {"updatedToolOutput": "REPLACED_NEW_SENTINEL", "updatedMCPToolOutput": "REPLACED_OLD_SENTINEL"},
         "both updatedToolOutput and updatedMCPToolOutput (strings)")]:
    write_case("r11_mcp_updated_%s" % key,
               "(extra) PostToolUse (matcher mcp__.*) on mcp__srv__echo_tool answers %s. Exact tool_result?" % what,
               {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [hook("post_mcp", "--stdout " + q(compact(
                   hso("PostToolUse", **fields))))]}],
                "PostToolUseFailure": [{"matcher": "*", "hooks": [hook("post_failure")]}]},
               MCP_TURNS, extra_args=MCP_ARGS,
               sentinels=["ORIGINAL_MCP_SENTINEL", "MCP_RESULT", "REPLACED_", "completed with no output"])
print("ok")
