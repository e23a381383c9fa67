import re,sys
d=open(sys.argv[1],'rb').read().decode('utf8','replace')
out=set()
for m in re.finditer(r'`(?:[^`\\]|\\.){0,400}`|"(?:[^"\\\n]|\\.){0,400}"|\'(?:[^\'\\\n]|\\.){0,300}\'', d):
    s=m.group(0)
    if re.search(r'[Hh]ook', s) and len(s)>12 and ' ' in s:
        # mask ${...}
        s=re.sub(r'\$\{[^}]{0,80}\}', '${}', s)
        out.add(s)
for s in sorted(out): print(s)
