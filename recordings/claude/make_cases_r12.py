"""Round-12 cases (cases/r12_*): where hook text lands when the LAST tool_result of the batch is an MCP
tool's result whose content is a LIST of blocks ([{"type":"text","text":"MCP_RESULT ..."}]).

(a) r12_mcp_list_batch_ctx:        one MCP call, PostToolBatch additionalContext BATCH_SENTINEL.
(b) r12_mcp_list_post_and_batch:   same + PostToolUse (mcp__.*) additionalContext POST_SENTINEL.
(c) r12_mcp_list_async_answer:     turn 0 Bash (async PostToolUse hook, `if: Bash(date *)`, sleeps 0.5 s,
                                   answers additionalContext ASYNC_SENTINEL); turn 1 the MCP call, the MCP
                                   server sleeps 2 s before answering (bin/mcp_server.py --call-sleep 2), so
                                   the async answer is ready before the MCP result is in.
(c') r12_mcp_list_async_answer_batch: same async hook, but turn 1 is ONE assistant message with two tool_uses:
                                   Bash `sleep 2; echo second` then the MCP call (MCP server does not sleep).
Controls: r12_bash_string_batch_ctx (string tool_result + PostToolBatch, expect the fold).
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


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


def ctx(event, label, text, *flags, **fields):
    return hook(label, *flags, "--stdout " + q(compact(hso(event, additionalContext=text))), **fields)


def write_case(name, question, hooks, turns, prompt="Run the command please.", sentinels=(), extra_args=(), **extra):
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


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


def mcp_config(call_sleep=None):
    args = ["@HARNESS@/bin/mcp_server.py", "--tools", "echo_tool", "--log", "@OUT@/mcp_server.jsonl"]
    if call_sleep:
        args += ["--call-sleep", str(call_sleep)]
    return ["--mcp-config", json.dumps({"mcpServers": {"srv": {"command": "@PY@", "args": args}}}), "--strict-mcp-config"]


FINAL = {"text": "Final answer from fake model."}
MCP_CALL = {"name": "mcp__srv__echo_tool", "input": {"text": "ORIGINAL_MCP_SENTINEL"}}
MCP_TURN = {"text": "Calling MCP.", "tool_use": MCP_CALL}
SENT = ["MCP_RESULT", "BATCH_SENTINEL", "POST_SENTINEL", "ASYNC_SENTINEL"]
BATCH = {"PostToolBatch": [{"hooks": [ctx("PostToolBatch", "batch_ctx", "BATCH_SENTINEL")]}]}

write_case("r12_mcp_list_batch_ctx",
           "(a) One call to mcp__srv__echo_tool (tool_result content is a list of blocks); a PostToolBatch hook "
           "answers additionalContext BATCH_SENTINEL. Where does it land in the next user message: folded into "
           "the tool_result list, or a separate text block? Any \\n?",
           BATCH, [MCP_TURN, FINAL], extra_args=mcp_config(), sentinels=SENT)

write_case("r12_mcp_list_post_and_batch",
           "(b) As (a) plus a PostToolUse hook (matcher mcp__.*) answering additionalContext POST_SENTINEL.",
           {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [ctx("PostToolUse", "post_ctx", "POST_SENTINEL")]}],
            **BATCH}, [MCP_TURN, FINAL], extra_args=mcp_config(), sentinels=SENT)

ASYNC = {"PostToolUse": [{"matcher": "Bash", "hooks": [ctx("PostToolUse", "post_async", "ASYNC_SENTINEL", "--sleep 0.5",
                                                           **{"if": "Bash(date *)", "async": True})]}]}
write_case("r12_mcp_list_async_answer",
           "(c) turn 0 Bash `date ...; echo hi` with an async PostToolUse hook (sleeps 0.5 s, additionalContext "
           "ASYNC_SENTINEL); turn 1 the MCP call; the MCP server sleeps 2 s before answering, so the async answer "
           "is ready before the MCP result. Where does the async answer land next to the MCP list tool_result?",
           ASYNC, [bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="first"), MCP_TURN,
                   bash("echo third", desc="third"), FINAL],
           extra_args=mcp_config(call_sleep=2), sentinels=SENT)

write_case("r12_mcp_list_async_answer_batch",
           "(c') as (c), but turn 1 is one assistant message with two tool_uses: Bash `sleep 2; echo second`, then "
           "the MCP call (last tool_result of the batch is the MCP list). MCP server does not sleep.",
           ASYNC, [bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="first"),
                   {"text": "Two tools.", "tool_uses": [{"name": "Bash", "input": {"command": "sleep 2; echo second",
                                                                               "description": "second"}}, MCP_CALL]},
                   bash("echo third", desc="third"), FINAL],
           extra_args=mcp_config(), sentinels=SENT)

write_case("r12_bash_string_batch_ctx",
           "CONTROL for (a): one Bash call (string tool_result) + PostToolBatch additionalContext BATCH_SENTINEL. "
           "Expect the fold into the string.",
           BATCH, [bash("echo hi", desc="first"), FINAL], sentinels=SENT)
print("ok")
