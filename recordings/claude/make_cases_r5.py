#!/usr/bin/env python3
"""Round-5 cases (cases/r5_*).  Same conventions as make_cases_r3.py (run the
r3 patches first).  Re-run after editing: python3 make_cases_r5.py"""
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


def js(obj):
    return q(json.dumps(obj))


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}


def write_case(name, question, hooks, turns, prompt="Run the command please.", settings_extra=None,
               sentinels=(), **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True}
    case["extra_args"] = list(extra.pop("extra_args", [])) + DEBUG
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
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)


# 1. Stop block reason with leading/trailing newlines
write_case("r5_stop_reason_whitespace",
           "Stop hook (once) prints {decision: block, reason: '\\n\\nREASON_SENTINEL line\\n\\n'}. "
           "What exact text does the model get for the continuation: is the reason trimmed, what surrounds it?",
           {"Stop": [{"hooks": [hook("stop", "--once", "--stdout " + js(
               {"decision": "block", "reason": "\n\nREASON_SENTINEL line\n\n"}))]}]},
           [{"text": "First final answer."}, {"text": "Second final answer after stop block."}],
           prompt="Say something.", sentinels=["REASON_SENTINEL"])

# 2. settings.json "env" key: visible to hooks?
write_case("r5_settings_env_in_hooks",
           "Project .claude/settings.json has env {LATCH_REC_ENV: from_settings}. Do SessionStart / PreToolUse / "
           "PostToolUse / Stop hooks see it in their environment? (Control: the Bash tool echoes it.)",
           {"SessionStart": [{"hooks": [hook("ss_env", "--dump-env")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_env", "--dump-env")]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [hook("post_env", "--dump-env")]}],
            "Stop": [{"hooks": [hook("stop_env", "--dump-env")]}]},
           [bash("echo \"tool sees LATCH_REC_ENV=[${LATCH_REC_ENV-<unset>}]\" > @OUT@/marker_tool_env; echo hi",
                 desc="Write marker"), FINAL],
           settings_extra={"env": {"LATCH_REC_ENV": "from_settings"}})

# 3. CLAUDE_PLUGIN_DATA: does the directory exist when a plugin hook runs?
PD = 'ls -ld "$CLAUDE_PLUGIN_DATA"; echo "$CLAUDE_PLUGIN_DATA"'
def pd_cmd(tag):
    return ('{ %s; } > @OUT@/marker_plugdata_%s.stdout 2> @OUT@/marker_plugdata_%s.stderr; '
            '@HOOK@ --label plug_%s --out @OUT@ --dump-env' % (PD, tag, tag, tag))
plug_hooks = {"description": "round-5 plugin data dir",
              "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": pd_cmd("ss")}]}],
                        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pd_cmd("pre")}]}]}}
write_case("r5_plugin_data_dir",
           "Plugin (--plugin-dir) hooks on SessionStart and PreToolUse run `ls -ld \"$CLAUDE_PLUGIN_DATA\"; "
           "echo \"$CLAUDE_PLUGIN_DATA\"`. Does the directory exist before the hook runs (created by Claude Code)? "
           "Exact path? (The Bash tool afterwards lists ~/.claude/plugins.)",
           None,
           [bash("ls -laR @HOME@/.claude/plugins > @OUT@/marker_tool_plugins_ls 2>&1; echo hi", desc="List plugins dir"),
            FINAL],
           extra_args=["--plugin-dir", "@WS@/plug"],
           workspace_files={
               "plug/.claude-plugin/plugin.json": json.dumps({"name": "dataplug", "version": "0.1.0",
                                                              "description": "harness plugin"}),
               "plug/hooks/hooks.json": json.dumps(plug_hooks, indent=2)})

# 3b/3c. controls: is the data dir created at plugin load, or only when a hook is spawned?
LS_TURNS = [bash("ls -laR @HOME@/.claude/plugins > @OUT@/marker_tool_plugins_ls 2>&1; echo hi", desc="List plugins dir"),
            FINAL]
write_case("r5_plugin_data_dir_nohooks",
           "Control for r5_plugin_data_dir: a --plugin-dir plugin with NO hooks. Does ~/.claude/plugins/data/<name>-inline exist anyway (Bash tool lists ~/.claude/plugins)?",
           None, LS_TURNS, extra_args=["--plugin-dir", "@WS@/plug"],
           workspace_files={"plug/.claude-plugin/plugin.json": json.dumps(
               {"name": "dataplug", "version": "0.1.0", "description": "harness plugin"})})
write_case("r5_plugin_data_dir_unfired",
           "Control for r5_plugin_data_dir: a --plugin-dir plugin whose only hook (PreToolUse, matcher NeverMatchesTool) never fires. Does the data dir exist when the Bash tool lists ~/.claude/plugins?",
           None, LS_TURNS, extra_args=["--plugin-dir", "@WS@/plug"],
           workspace_files={"plug/.claude-plugin/plugin.json": json.dumps(
               {"name": "dataplug", "version": "0.1.0", "description": "harness plugin"}),
               "plug/hooks/hooks.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "NeverMatchesTool", "hooks": [
                   {"type": "command", "command": "@HOOK@ --label never --out @OUT@"}]}]}}, indent=2)})
