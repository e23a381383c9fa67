import sys,re
d=open(sys.argv[1],'rb').read().decode('utf8','replace')
def enclosing(i):
    # walk back to unmatched '{'
    depth=0; j=i
    while j>0:
        j-=1; c=d[j]
        if c in '}])': depth+=1
        elif c in '{[(':
            if depth==0: break
            depth-=1
    # walk forward
    depth=0; k=j
    while k<len(d):
        c=d[k]
        if c in '{[(': depth+=1
        elif c in '}])':
            depth-=1
            if depth==0: break
        k+=1
    return d[j:k+1]
for m in re.finditer(r'hook_event_name:"([A-Za-z]+)"', d):
    o=enclosing(m.start())
    if len(o)>1500: o=o[:1500]+'...'
    print(m.group(1), '\t', o)
