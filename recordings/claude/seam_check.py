#!/usr/bin/env python3
"""Check the Claude Code 2.1.197 "text-seam newline" rule against recorded API requests (FINDINGS.md §38).

Usage: python3 seam_check.py [-v]   (SEAM_RAW_DIR=<dir> also reads unclipped <dir>/**/api_requests.jsonl)

Rule (from normalizeMessagesForAPI = `Ak` in the bundle, merge helper `rdr`/`tum`):
  In a user message sent to the API, a text block gets ONE extra trailing "\n" iff the next
  non-tool_result block of the same message is the FIRST block of a separate *user-type* message
  that was merged in (rdr -> tum).  Blocks that came from an *attachment* message (merged by
  Qcm -> num, which never adds "\n") do not cause a newline on the block before them.

Which source kind a text block had is inferred from its text (this is the only heuristic):
  U (separate user message, merged with rdr -> causes "\n" on the block before it):
     - the prompt / any plain (non <system-reminder>) text
     - the prepended user-context reminder "<system-reminder>\nAs you answer the user's questions..."
       (its own text already ends with "</system-reminder>\n")
     - hook texts produced inside tool execution (PreToolUse:/PostToolUse:/PostToolUseFailure:
       labels): the query loop normalises each of those attachments to a user message at once
       (ae.push(...Ak([msg]))), so at request time they are user messages, not attachments
  A (attachment still in the message list at request time, merged with Qcm -> num):
     - every other <system-reminder> block (SessionStart, UserPromptSubmit, PostToolBatch,
       agent listing, skills listing, ...)
Observed "extra \n" is measured against the known base ending ("</system-reminder>",
"</system-reminder>\n" for the user-context reminder, the case prompt for plain text).
"""
import glob, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The peer harness's round-1/2 cases, when the checkout sits beside it.
PEERS = os.path.join(HERE, "..", "..", "..", "shared", "peers", "claude", "cases")
# Unclipped request logs of scratch runs (`<dir>/**/api_requests.jsonl`), if any.
RAW = os.environ.get("SEAM_RAW_DIR")
from collections import OrderedDict

SR = "<system-reminder>\n"
TOOL_STREAM = re.compile(r"^(PreToolUse|PostToolUse|PostToolUseFailure|PermissionDenied)\b[^\n]* hook ")


def kind(block):
    if block.get("type") != "text":
        return block.get("type")
    t = block["text"]
    if t.startswith(SR):
        inner = t[len(SR):]
        if inner.startswith("As you answer the user's questions"):
            return "U"
        if TOOL_STREAM.match(inner):
            return "U"
        return "A"
    return "U"


def short(block):
    if block.get("type") == "tool_result":
        return "TR"
    t = block.get("text", "")
    if t.startswith(SR):
        inner = t[len(SR):].split("\n")[0]
        if inner.startswith("As you answer"):
            return "userContext"
        if inner.startswith("Available agent types"):
            return "agents"
        if inner.startswith("The following skills"):
            return "skills"
        m = re.match(r"^([\w:]+) hook (additional context|success|blocking error[^:]*)[: ]*(.*)", inner)
        if m:
            s = m.group(3)
            s = re.sub(r"^(\S*SENTINEL\S*|\S{0,20}).*", r"\1", s)
            return "%s %s %s" % (m.group(1), {"additional context": "ctx"}.get(m.group(2), m.group(2).split(" from")[0]), s)
        return "SR:" + inner[:25]
    return "text:" + t[:25].replace("\n", "\\n")


def base_ends_nl(t, wfiles):
    """Plain text whose base itself ends with a newline: a slash-command / skill body taken from a
    workspace file that ends with "\n" (its last line, with $ARGUMENTS as a wildcard, matches)."""
    body = t[:-1] if t.endswith("\n") else t
    last = body.split("\n")[-1]
    for content in (wfiles or {}).values():
        if not isinstance(content, str) or not content.endswith("\n"):
            continue
        pat = re.escape(content[:-1].split("\n")[-1]).replace(re.escape("$ARGUMENTS"), ".*")
        if pat and re.fullmatch(pat, last):
            return True
    return False


def observed_extra(block, prompt, wfiles=None):
    """True/False: does the block carry one extra trailing newline; None if unknown (clipped)."""
    t = block["text"]
    if re.search(r"\.\.\.\[clipped \d+ chars\]$", t):
        return None
    if t.startswith(SR):
        base_nl = t[len(SR):].startswith("As you answer the user's questions")
        end = "</system-reminder>\n" if base_nl else "</system-reminder>"
        if t.endswith(end + "\n"):
            return True
        if t.endswith(end):
            return False
        return None
    if prompt is not None and t in (prompt, prompt + "\n"):
        return t == prompt + "\n"
    if base_ends_nl(t, wfiles):
        return t.endswith("\n\n")
    return t.endswith("\n")


def predict(content):
    """Per block: True = extra '\n' predicted, False = none, for text blocks; None otherwise."""
    rest = [i for i, b in enumerate(content) if b.get("type") != "tool_result"]
    pred = [None] * len(content)
    for pos, i in enumerate(rest):
        if content[i].get("type") != "text":
            continue
        nxt = content[rest[pos + 1]] if pos + 1 < len(rest) else None
        pred[i] = nxt is not None and kind(nxt) == "U"
    return pred


def check_message(content, prompt, wfiles=None):
    texts = [b for b in content if b.get("type") == "text"]
    if len(texts) < 2:
        return None
    pred = predict(content)
    rows, ok, unknown = [], True, 0
    global BLK_NL, BLK_NONE
    for b, p in zip(content, pred):
        if b.get("type") != "text":
            rows.append(short(b))
            continue
        o = observed_extra(b, prompt, wfiles)
        mark = "\\n" if p else ""
        if o is None:
            unknown += 1
            rows.append("%s[%s]%s?" % (short(b), kind(b), mark))
        else:
            if o != p:
                ok = False
            elif p:
                BLK_NL += 1
            else:
                BLK_NONE += 1
            rows.append("%s[%s]%s%s" % (short(b), kind(b), "\\n" if o else "", "" if o == p else "  <-- MISMATCH(pred %s)" % ("\\n" if p else "none")))
    return ok, unknown, rows


def iter_observed(paths):
    for f in sorted(paths):
        d = json.load(open(f))
        case = os.path.relpath(os.path.dirname(f), "/")
        prompt = d.get("prompt")
        seen = set()
        reqs = []
        for key in ("api_main_requests", "api_agent_requests"):
            v = d.get(key) or []
            if isinstance(v, dict):
                for name, lst in v.items():
                    reqs += [(key + ":" + name, r) for r in lst]
            else:
                reqs += [(key, r) for r in v]
        for key, r in reqs:
            for content in new_user_contents(r.get("new_messages") or [], seen):
                yield case, key, prompt, content


def new_user_contents(messages, seen):
    """The block lists of the user messages not seen yet (each message once)."""
    for m in messages:
        if m.get("role") != "user" or not isinstance(m.get("content"), list):
            continue
        sig = json.dumps(m, sort_keys=True)
        if sig in seen:
            continue
        seen.add(sig)
        yield m["content"]


def iter_raw(paths):
    for f in sorted(paths):
        case = os.path.relpath(os.path.dirname(f), "/")
        prompt = None
        cj = os.path.join(os.path.dirname(f), "case.json")
        if os.path.exists(cj):
            try:
                prompt = json.load(open(cj)).get("prompt")
            except Exception:
                pass
        seen = set()
        for line in open(f):
            try:
                d = json.loads(line)
            except Exception:
                continue
            body = d.get("body")
            if isinstance(body, str):
                try:
                    body = json.loads(body)
                except Exception:
                    continue
            if d.get("method") != "POST" or not isinstance(body, dict) or "messages" not in body:
                continue
            for content in new_user_contents(body["messages"], seen):
                yield case, "raw", prompt, content


BLK_NL = BLK_NONE = 0


def run(label, it, verbose):
    global BLK_NL, BLK_NONE
    BLK_NL = BLK_NONE = 0
    n = agree = unk_msgs = 0
    shapes = OrderedDict()
    bad = []
    for case, key, prompt, content in it:
        cj = os.path.join("/", case, "case.json")
        if "last_run" in case:
            cj = os.path.join("/", os.path.dirname(case), "case.json")
        wfiles = {}
        if os.path.exists(cj):
            try:
                wfiles = json.load(open(cj)).get("workspace_files") or {}
            except Exception:
                pass
        r = check_message(content, prompt, wfiles)
        if r is None:
            continue
        ok, unknown, rows = r
        n += 1
        agree += ok
        unk_msgs += unknown > 0
        shape = " | ".join(rows)
        shapes.setdefault(shape, []).append(case)
        if not ok:
            bad.append((case, shape))
    print("== %s: %d user messages with 2+ text blocks; %d agree with the rule, %d disagree"
          " (%d have a clipped block whose tail is unknown, counted as agreeing on the rest)" % (label, n, agree, n - agree, unk_msgs))
    print("   text blocks verified: %d with the predicted extra \\n, %d predicted and observed without" % (BLK_NL, BLK_NONE))
    for shape, cases in shapes.items():
        uniq = sorted(set(cases))
        if verbose or any("MISMATCH" in shape for _ in [0]):
            pass
        print("  %3d msg  %s" % (len(cases), shape))
        print("         e.g. %s%s" % (", ".join(c.split("/")[-1] if "last_run" not in c else c.split("/")[-2] for c in uniq[:6]), " (+%d more)" % (len(uniq) - 6) if len(uniq) > 6 else ""))
    return n, agree


if __name__ == "__main__":
    verbose = "-v" in sys.argv
    canon = glob.glob(os.path.join(HERE, "*", "observed.json")) + glob.glob(os.path.join(PEERS, "*", "observed.json"))
    run("recorded observed.json (recordings/claude and the peer harness's cases)", iter_observed(canon), verbose)
    if RAW:
        raw = glob.glob(os.path.join(RAW, "**", "api_requests.jsonl"), recursive=True)
        run("raw api_requests.jsonl under %s (unclipped texts)" % RAW, iter_raw(raw), verbose)


# ---------------------------------------------------------------- assembly simulator
# A transcription of the parts of Ak (normalizeMessagesForAPI) that shape ONE user message:
# jcm (attachments bubble up to just after the nearest assistant / tool_result-first user message),
# rdr/tum (user+user merge: "\n" on a text|text seam), Qcm/num/D8o (attachment merge: no "\n";
# folded into a preceding string tool_result), jfc (tool_results first).
def mw(s):
    return "<system-reminder>\n%s\n</system-reminder>" % s


def U(*blocks):           # a user-type message (prompt, tool_result message, tool-stream hook text)
    return ("user", [b if isinstance(b, dict) else {"type": "text", "text": b} for b in blocks])


def A(text):              # an attachment still unnormalised at request time (one text)
    return ("att", [{"type": "text", "text": text}])


def TR(i, content, is_error=False):
    return {"tool_use_id": "toolu_fake_00_%02d" % i, "type": "tool_result", "content": content, "is_error": is_error}


def _jcm(seq):
    out, pend = [], []
    for kind_, blocks in reversed(seq):
        if kind_ == "att":
            pend.append((kind_, blocks))
            continue
        stop = blocks and blocks[0].get("type") == "tool_result"
        if stop and pend:
            out += pend
            pend = []
        out.append((kind_, blocks))
    out += pend                     # bubbled to the start (just after the assistant message)
    return list(reversed(out))


def _jfc(blocks):
    return [b for b in blocks if b.get("type") == "tool_result"] + [b for b in blocks if b.get("type") != "tool_result"]


def _tum(e, t):
    if e and t and e[-1].get("type") == "text" and t[0].get("type") == "text":
        return e[:-1] + [dict(e[-1], text=e[-1]["text"] + "\n")] + t
    return e + t


def _d8o(tr, t):
    if tr.get("is_error"):
        t = [x for x in t if x.get("type") == "text"]
        if not t:
            return tr
    parts = [(tr.get("content") or "").strip()] + [x["text"].strip() for x in t]
    return dict(tr, content="\n\n".join(p for p in parts if p))


def _num(e, t):
    last = e[-1] if e else None
    if not last or last.get("type") != "tool_result":
        return e + t
    if isinstance(last.get("content"), str) and all(x.get("type") == "text" for x in t):
        return e[:-1] + [_d8o(last, t)]
    return e + t


def assemble(seq):
    """seq: the messages after the last assistant message, in in-memory order. Returns the content."""
    acc = None
    for kind_, blocks in _jcm(seq):
        if acc is None:
            acc = list(blocks)
        elif kind_ == "user":
            acc = _jfc(_tum(acc, blocks))
        else:
            acc = _jfc(_num(acc, blocks))
    return acc


def ctxt(label, c):
    return mw("%s hook additional context: %s" % (label, c))


def last_user_content(path, request_index=-1):
    d = json.load(open(path))
    r = d["api_main_requests"][request_index]
    return [m for m in r["new_messages"] if m["role"] == "user"][-1]["content"]


SIM_CASES = [
    # (observed.json, in-memory sequence after the assistant tool_use message)
    (os.path.join(HERE, "r3_deny_slow_plus_context_fast", "observed.json"),
     [U(ctxt("PreToolUse:Bash", "CTX_B_SENTINEL ctx of B")), U(ctxt("PreToolUse:Bash", "CTX_A_SENTINEL ctx of A")),
      U(TR(0, "DENY_A_SENTINEL reason", True))]),
    (os.path.join(HERE, "r3_post_tool_batch_two_contexts", "observed.json"),
     [U(TR(0, "one")), U(ctxt("PostToolUse:Bash", "POST_CTX_SENTINEL")), U(TR(1, "two")), U(ctxt("PostToolUse:Bash", "POST_CTX_SENTINEL")),
      A(ctxt("PostToolBatch", "BATCH_CTX_B_SENTINEL")), A(ctxt("PostToolBatch", "BATCH_CTX_A_SENTINEL"))]),
    (os.path.join(HERE, "r3_post_tool_batch_posttooluse_ctx_only", "observed.json"),
     [U(TR(0, "one")), U(ctxt("PostToolUse:Bash", "POST_CTX_SENTINEL")), U(TR(1, "two")), U(ctxt("PostToolUse:Bash", "POST_CTX_SENTINEL"))]),
    (os.path.join(HERE, "r3_post_tool_batch_ctx_two_handlers", "observed.json"),
     [U(TR(0, "one")), U(TR(1, "two")), A(ctxt("PostToolBatch", "BATCH_CTX_B_SENTINEL")), A(ctxt("PostToolBatch", "BATCH_CTX_A_SENTINEL"))]),
    (os.path.join(HERE, "r3_post_tool_batch_context", "observed.json"),
     [U(TR(0, "one")), U(TR(1, "two")), A(ctxt("PostToolBatch", "BATCH_CTX_SENTINEL ctx"))]),
    (os.path.join(HERE, "r10_seam_single_post_ctx_batch", "observed.json"),
     [U(TR(0, "hi")), U(ctxt("PostToolUse:Bash", "POST_CTX_SENTINEL")), A(ctxt("PostToolBatch", "BATCH_CTX_SENTINEL"))]),
    (os.path.join(HERE, "r10_seam_single_pre_ctx_batch", "observed.json"),
     [U(ctxt("PreToolUse:Bash", "PRE_CTX_SENTINEL")), U(TR(0, "hi")), A(ctxt("PostToolBatch", "BATCH_CTX_SENTINEL"))]),
    (os.path.join(HERE, "r10_seam_two_pre_post_batch", "observed.json"),
     [U(ctxt("PreToolUse:Bash", "PRE1_SENTINEL")), U(TR(0, "one")), U(ctxt("PostToolUse:Bash", "POST1_SENTINEL")),
      U(ctxt("PreToolUse:Bash", "PRE2_SENTINEL")), U(TR(1, "two")), U(ctxt("PostToolUse:Bash", "POST2_SENTINEL")),
      A(ctxt("PostToolBatch", "BATCH_CTX_SENTINEL"))]),
    (os.path.join(HERE, "r10_seam_two_post_first_only_batch", "observed.json"),
     [U(TR(0, "one")), U(ctxt("PostToolUse:Bash", "POST1_SENTINEL")), U(TR(1, "two")),
      A(ctxt("PostToolBatch", "BATCH_CTX_SENTINEL"))]),
]


def first_turn_case(raw_path):
    """First request of a run: attachments (agents, skills, SessionStart, UserPromptSubmit...) + the
    prepended user-context message + the prompt.  Base texts are taken from the request itself (the
    known base endings), so this checks the seam and ordering logic, not the texts."""
    for line in open(raw_path):
        d = json.loads(line)
        b = d.get("body")
        if d.get("method") == "POST" and isinstance(b, dict) and b.get("messages"):
            content = [{k: v for k, v in blk.items() if k != "cache_control"} for blk in b["messages"][0]["content"]]
            seq = []
            for blk in content:
                t = blk["text"]
                k = kind(blk)
                if observed_extra(blk, None):
                    t = t[:-1]
                seq.append(U(t) if k == "U" else A(t))
            # in memory the user-context message comes first and attachments follow the prompt;
            # jcm moves the attachments back to the front
            us = [x for x in seq if x[0] == "user"]
            ats = [x for x in seq if x[0] == "att"]
            return content, us + ats
    return None, None


def run_sim():
    n = ok = 0
    print("== simulator (assemble) vs recorded user messages")
    for path, seq in SIM_CASES:
        if not os.path.exists(path):
            continue
        want = last_user_content(path)
        got = assemble(seq)
        n += 1
        good = got == want
        ok += good
        print("  %-4s %s" % ("OK" if good else "DIFF", path.split("/")[-2]))
        if not good:
            print("     want", json.dumps(want)[:600])
            print("     got ", json.dumps(got)[:600])
    firsts = sorted(glob.glob(os.path.join(RAW, "**", "last_run", "api_requests.jsonl"), recursive=True)) if RAW else []
    shapes = {}
    for p in firsts:
        want, seq = first_turn_case(p)
        if want is None:
            continue
        got = assemble(seq)
        n += 1
        good = got == want
        ok += good
        sig = tuple(short(b) for b in want)
        shapes.setdefault((sig, good), []).append(p.split("/")[-3])
    for (sig, good), cs in shapes.items():
        print("  %-4s first request, %3d runs: %s  (e.g. %s)" % ("OK" if good else "DIFF", len(cs), " | ".join(sig), cs[0]))
    print("  %d/%d identical" % (ok, n))


if __name__ == "__main__":
    run_sim()
