#!/usr/bin/env python3
"""compare.py CASE_DIR... : compare rec_observed.json (2.1.197) with observed.json (2.1.332) after normalisation."""
import json, re, sys, os
DROP = {'t_start_s','t_end_s','duration_s','wall_s','claude_end_s','duration_ms','duration_api_ms','ttft_ms',
        'ttft_stream_ms','time_to_request_ms','finding','claude_code_version','t_s','stdin_raw_len','stdin_raw_head',
        'stdin_raw_tail','debug_log_hook_lines','total_cost_usd','usage','modelUsage','uuid','note','proc_dump','durationMs','request_seq'}
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
def nstr(s):
    s = UUID.sub('<UUID>', s)
    s = re.sub(r'\n*<system-reminder>\n<total_tokens>\d+ tokens left</total_tokens>\n</system-reminder>', '', s)
    s = re.sub(r'async_hook_\d+', 'async_hook_<PID>', s)
    s = re.sub(r'\b\d+(\.\d+)?\s?(ms|s)\b', '<T>', s)
    s = re.sub(r'"duration_ms":\d+', '"duration_ms":<T>', s)
    return s
def norm(o):
    if isinstance(o, dict): return {k: norm(v) for k, v in o.items() if k not in DROP}
    if isinstance(o, (list, tuple)): return [norm(x) for x in o]
    if isinstance(o, str): return nstr(o)
    return o
HOOKY = re.compile(r'hook|Hook|HOOK|block|[A-Z_]{5,}', re.S)
def blocks(reqs, sentinels):
    out = []
    for r in reqs or []:
        for m in r.get('new_messages', []):
            c = m.get('content')
            if isinstance(c, str): c = [{'type': 'text', 'text': c}]
            for b in c or []:
                if not isinstance(b, dict): continue
                t = json.dumps(b, ensure_ascii=False)
                if b.get('type') == 'text' and b.get('text', '').startswith('<system-reminder>') and \
                   not any(s in t for s in sentinels) and 'hook' not in t.lower(): continue
                if b.get('type') == 'text' and b.get('text', '').startswith(('<system-reminder>\n# Environment', '<system-reminder>\nAvailable agent types', '<system-reminder>\nThe following skills', "<system-reminder>\nAs you answer")): continue
                if b.get('type') == 'text' and ('skills are available' in t or 'Available agent types' in t or '# Environment' in t or "As you answer the user's questions" in t) and not any(s in t for s in sentinels): continue
                bb = {k: v for k, v in b.items() if k not in ('cache_control', 'id', 'citations')}
                out.append((m.get('role'), bb))
    return norm(out)
def hooks_key(h):
    st = h.get('stdin') if isinstance(h.get('stdin'), dict) else {}
    return (h.get('label', ''), str(st.get('hook_event_name', '')), json.dumps(norm(st), sort_keys=True))
def keyorder(st):
    return list(st.keys()) if isinstance(st, dict) else None
def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b: out.append((path + '.' + k, 'REMOVED', a[k]))
            else: diff(a[k], b[k], path + '.' + k, out)
        for k in b:
            if k not in a: out.append((path + '.' + k, 'ADDED', b[k]))
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): out.append((path, 'LEN %d->%d' % (len(a), len(b)), (a, b)))
        for i, (x, y) in enumerate(zip(a, b)): diff(x, y, '%s[%d]' % (path, i), out)
    elif a != b:
        out.append((path, 'CHANGED', (a, b)))
def short(v, n=300):
    s = json.dumps(v, ensure_ascii=False); return s if len(s) <= n else s[:n] + '...'
def compare(cd):
    A = json.load(open(os.path.join(cd, 'rec_observed.json'))); B = json.load(open(os.path.join(cd, 'observed.json')))
    sent = A.get('sentinels') and list(A['sentinels'].keys()) if isinstance(A.get('sentinels'), dict) else []
    out = []
    # exit, stderr, markers
    for k in ('claude_exit', 'claude_stderr', 'markers', 'second_run', 'http_hook_requests', 'mcp_server_calls'):
        if k in A or k in B: diff(norm(A.get(k)), norm(B.get(k)), k, out)
    # result: only keys of A
    ra, rb = A.get('claude_result'), B.get('claude_result')
    if isinstance(ra, dict) and isinstance(rb, dict):
        for k in ra:
            if k == 'stream_json_events':
                ea = [e for e in ra[k]]; eb = rb.get(k, [])
                # compare hook-related stream events and result/assistant text
                fa = [norm(e) for e in ea if e.get('type') != 'system' or 'hook' in e.get('subtype', '') or e.get('subtype') not in ('init',)]
                fb = [norm(e) for e in eb if e.get('type') != 'system' or 'hook' in e.get('subtype', '') or e.get('subtype') not in ('init',)]
                fb2 = [{kk: vv for kk, vv in e.items() if kk in (ea_keys := set().union(*[x.keys() for x in fa]) if fa else set())} for e in fb]
                diff(fa, fb2, 'result.stream', out)
                newkeys = sorted(set().union(*[e.keys() for e in fb]) - (set().union(*[e.keys() for e in fa]) if fa else set())) if fb else []
                if newkeys: out.append(('result.stream', 'NEWKEYS', newkeys))
            elif k in DROP: continue
            elif k in rb: diff(norm(ra[k]), norm(rb[k]), 'result.' + k, out)
            else: out.append(('result.' + k, 'REMOVED', ra[k]))
    elif ra != rb: diff(norm(ra), norm(rb), 'result', out)
    # hooks
    ha = sorted(A.get('hooks', []), key=hooks_key); hb = sorted(B.get('hooks', []), key=hooks_key)
    la = [(h.get('label'), (h.get('stdin') or {}).get('hook_event_name') if isinstance(h.get('stdin'), dict) else None) for h in ha]
    lb = [(h.get('label'), (h.get('stdin') or {}).get('hook_event_name') if isinstance(h.get('stdin'), dict) else None) for h in hb]
    if la != lb: out.append(('hooks', 'CALLS', (la, lb)))
    else:
        for i, (x, y) in enumerate(zip(ha, hb)):
            ko_a, ko_b = keyorder(x.get('stdin')), keyorder(y.get('stdin'))
            if ko_a != ko_b: out.append(('hooks[%s].stdin' % x.get('label'), 'KEYORDER', (ko_a, ko_b)))
            xa = {k: v for k, v in x.items() if k in y or k in ('exit', 'stdin', 'stdin_raw', 'env', 'death', 'signal')}
            yb = {k: v for k, v in y.items() if k in x}
            xa.pop('stdin_raw', None); yb.pop('stdin_raw', None)
            diff(norm(xa), norm(yb), 'hooks[%s]' % x.get('label'), out)
    diff(blocks(A.get('api_main_requests'), sent or []), blocks(B.get('api_main_requests'), sent or []), 'model_blocks', out)
    diff(norm(A.get('sentinels')), norm(B.get('sentinels')), 'sentinels', out)
    diff(norm(A.get('transcript_hook_entries')), norm(B.get('transcript_hook_entries')), 'transcript', out)
    return out
if __name__ == '__main__':
    allres = {}
    for cd in sys.argv[1:]:
        n = os.path.basename(cd.rstrip('/'))
        if not os.path.exists(os.path.join(cd, 'observed.json')): continue
        try: res = compare(cd)
        except Exception as e: res = [('ERROR', repr(e), None)]
        allres[n] = res
        print('=== %s: %d diffs' % (n, len(res)))
        for p, kind, v in res: print('   %s %s %s' % (p, kind, short(v)))
    json.dump({k: [[p, kd, v] for p, kd, v in r] for k, r in allres.items()}, open('/tmp/drift/cmp/diffs.json', 'w'), indent=1, ensure_ascii=False, default=str)

def flat_texts(reqs, sentinels):
    """split folded tool_result strings into pieces; return list of texts (layout-insensitive)."""
    out = []
    for role, b in blocks(reqs, sentinels):
        if b.get('type') == 'tool_result':
            c = b.get('content')
            if isinstance(c, list):
                c = '\n'.join(x.get('text', '') for x in c if isinstance(x, dict))
            parts = re.split(r'\n\n(?=<system-reminder>)', c or '')
            out.append(('tool_result', parts[0].strip(), b.get('is_error')))
            out += [('text', p.strip(), None) for p in parts[1:]]
        elif b.get('type') == 'text':
            out.append(('text', b.get('text', '').strip(), None))
        else:
            out.append((b.get('type'), json.dumps(b.get('input', ''))[:200], None))
    return out
