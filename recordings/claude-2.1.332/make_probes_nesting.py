"""Cases on how Claude Code 2.1.332 reads a settings file nested deeper
than 64 levels (`xje`, `he`) and one matcher group with several wrong
entries (`N4s`). CASES=<dir> python3 make_probes_nesting.py, then
run_case.sh <dir>/<case> in the harness (with 2.1.332 pinned)."""
import json, os
BASE = os.environ.get("CASES", "cases")

def hook(label, out_json=None, dump_env=False, **extra):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    if dump_env:
        cmd += " --dump-env"
    if out_json is not None:
        cmd += " --stdout '%s'" % json.dumps(out_json)
    h = {"type": "command", "command": cmd}
    h.update(extra)
    return h

def ctx(event, text):
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}

ONE = {"turns": [{"text": "Running the command.", "tool_use": {"name": "Bash", "input": {
        "command": "echo ran > @OUT@/marker_tool_ran; echo hi", "description": "Write marker"}}},
       {"text": "Final answer from fake model."}],
       "default_text": "Script exhausted.", "side_text": "Hook harness session"}

def case(name, question, sentinels, settings, user_settings=None):
    d = os.path.join(BASE, name)
    os.makedirs(d, exist_ok=True)
    c = {"question": question, "prompt": "Run the command please.", "max_turns": 10, "timeout": 60,
         "sentinels": sentinels, "stable_ids": True, "extra_args": ["--debug-file", "@OUT@/debug.log"]}
    json.dump(c, open(d + "/case.json", "w"), indent=2)
    json.dump(settings, open(d + "/settings.json", "w"), indent=2)
    json.dump(ONE, open(d + "/script.json", "w"), indent=2)
    if user_settings is not None:
        json.dump(user_settings, open(d + "/user_settings.json", "w"), indent=2)

def chain(level, inner):
    """{"k": {"k": ... inner ...}} as the value of a top-level setting: inner at `level`."""
    v = inner
    for _ in range(level - 2):
        v = {"k": v}
    return v

def nested_lists(depth):
    v = []
    for _ in range(depth - 1):
        v = [v]
    return v

POST = lambda label, text: {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook(label, ctx("PostToolUse", text))]}]}}
ENV_HOOK = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook("env_probe", ctx("PostToolUse", "N_ENV_HOOK ran"), dump_env=True)]}]}}

# 1: a value at level 65 inside statusLine (cut, a warning); the file's hook still runs.
s = POST("deep_ok", "N1_CTX the file loaded")
s["statusLine"] = {"type": "command", "command": "true", "x": chain(65, [1])}
case("n1_deep_value_cut_file_loads", "A value 65 levels deep in statusLine: is the file (its PostToolUse hook) kept?", ["N1_CTX"], s)
# 2, 3: `hooks` as nested arrays (70 deep: cut, fatal; 10 deep: control) beside an `env`; the user's hook reads the env.
for name, depth in (("n2_hooks_nested_lists_70", 70), ("n3_hooks_nested_lists_10", 10)):
    case(name, "hooks = nested lists %d deep beside env N_PROBE=yes: is the file's env applied (dropped file: no)?" % depth,
         ["N_ENV_HOOK"], {"env": {"N_PROBE": "yes"}, "hooks": nested_lists(depth)}, user_settings=ENV_HOOK)
# 4: one PostToolUse group: good A, two entries only the schema rejects, good B; plus a second group of one bad entry.
bad1 = hook("bad_one", ctx("PostToolUse", "N4_BAD1"), rewakeMessage=5)
bad2 = hook("bad_two", ctx("PostToolUse", "N4_BAD2"), rewakeMessage=True)
bad3 = hook("bad_three", ctx("PostToolUse", "N4_BAD3"), statusMessage=[])
s = {"env": {"N_PROBE": "yes"}, "hooks": {"PostToolUse": [
    {"matcher": "Bash", "hooks": [hook("good_a", ctx("PostToolUse", "N4_CTX_A")), bad1, hook("good_b", ctx("PostToolUse", "N4_CTX_B")), bad2]},
    {"matcher": "Bash", "hooks": [bad3]}]}}
case("n4_several_wrong_entries_one_event", "PostToolUse: good A, two schema-only wrong entries, good B, and a group of one wrong entry. Which run?",
     ["N4_CTX_A", "N4_CTX_B", "N4_BAD1", "N4_BAD2", "N4_BAD3"], s)
