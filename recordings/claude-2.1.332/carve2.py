import mmap, sys, re
path, out = sys.argv[1], sys.argv[2]
f = open(path, 'rb'); m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
hdr = b'// @bun'
chunks = []; i = m.find(hdr); seen=set()
while i != -1:
    e = m.find(b'\x00', i)
    body = m[i:e]
    if body not in seen:
        seen.add(body); chunks.append((i, body))
    i = m.find(hdr, e)
tot = 0
with open(out, 'wb') as o:
    for n, (i, b) in enumerate(chunks):
        o.write(b'\n/*==== CHUNK %d @%d len %d ====*/\n' % (n, i, len(b))); o.write(b); tot += len(b)
print(len(chunks), 'chunks', tot, 'bytes')
