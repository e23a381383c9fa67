import json, sys, os, re
sys.path.insert(0, '/tmp/drift'); import compare as C
NOISE = re.compile(r'^(sentinels|markers\.marker_tool\d?_ran|markers\.marker_plug|markers\.marker_tool_plugins|transcript\[\d+\]\.attachment\.(accountMemoryBatch|toolName)|hooks\[[^]]*\]\.env\.(AI_AGENT|CLAUDE_CODE_SESSION_ATTENDED|CLAUDE_CODE_CHILD_NOTES_DIR|CLAUDE_PID|CLAUDE_CODE_MESSAGING_(TOKEN|SOCKET))|model_blocks)')
for cd in sys.argv[1:]:
    n = os.path.basename(cd.rstrip('/'))
    if not os.path.exists(cd + '/observed.json'): continue
    res = C.compare(cd)
    A = json.load(open(cd + '/rec_observed.json')); B = json.load(open(cd + '/observed.json'))
    s = list(A['sentinels'].keys()) if isinstance(A.get('sentinels'), dict) else []
    fa, fb = C.flat_texts(A.get('api_main_requests'), s), C.flat_texts(B.get('api_main_requests'), s)
    rest = [(p, k, v) for p, k, v in res if not NOISE.match(p)]
    layout = any(p.startswith('model_blocks') for p, k, v in res)
    textdiff = fa != fb
    print('=== %s: %s%s%s' % (n, 'SAME' if not rest and not textdiff else '', ' [layout]' if layout and not textdiff else '', ''))
    if textdiff:
        sa = [x for x in fa if x not in fb]; sb = [x for x in fb if x not in fa]
        for x in sa: print('   TEXT-OLD', C.short(x, 700))
        for x in sb: print('   TEXT-NEW', C.short(x, 700))
        if not sa and not sb: print('   TEXT-ORDER', C.short([x[1][:60] for x in fa], 600), '->', C.short([x[1][:60] for x in fb], 600))
    for p, k, v in rest: print('   %s %s %s' % (p, k, C.short(v, 500)))
