import sys
d=open(sys.argv[1],'rb').read().decode('utf8','replace'); pat=sys.argv[2]; n=int(sys.argv[3]) if len(sys.argv)>3 else 1
i=d.find(pat); c=0
while i!=-1 and c<n:
    # walk back to '({' opening of object
    j=d.rfind('object({',0,i)
    k=j+len('object('); depth=0
    while True:
        ch=d[k]
        if ch in '([{': depth+=1
        elif ch in ')]}':
            depth-=1
            if depth==0: break
        k+=1
    print('@%d'%j, d[j-40:k+1]); print('------')
    c+=1; i=d.find(pat,k)
