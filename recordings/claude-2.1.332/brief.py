import sys, re, subprocess
txt = open(sys.argv[1]).read()
for blk in txt.split('=== ')[1:]:
    lines = blk.split('\n')
    head = lines[0]; out = []
    stream = False; tx = False
    for l in lines[1:]:
        if not l.strip(): continue
        if re.match(r'\s+result\.stream', l): stream = True; continue
        if re.match(r'\s+transcript', l): tx = True; continue
        if re.match(r'\s+hooks\[[^]]*\]\.env\.', l): continue
        if re.match(r'\s+markers\.marker_(hook|tool)', l): continue
        out.append(l[:int(sys.argv[2]) if len(sys.argv) > 2 else 400])
    flags = (' [stream]' if stream else '') + (' [transcript]' if tx else '')
    if out or flags: print('=== ' + head + flags); print('\n'.join(out))
