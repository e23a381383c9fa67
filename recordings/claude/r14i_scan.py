#!/usr/bin/env python3
"""r14i_scan.py PTY_RAW: list every OSC sequence (ESC ] ... BEL | ESC \\), every DCS (ESC P ... ESC \\) and every
standalone BEL in a pty capture, with byte offset and escaped context; then needle searches."""
import re, sys
raw = open(sys.argv[1], "rb").read()
def esc(b):
    return b.decode("latin-1").encode("unicode_escape").decode("ascii")
print("bytes", len(raw))
osc = list(re.finditer(rb"\x1b\](.*?)(\x07|\x1b\\)", raw, re.S))
print("OSC sequences: %d" % len(osc))
counts = {}
for m in osc:
    counts.setdefault(m.group(0), []).append(m.start())
for seq, offs in counts.items():
    print("  %-50s x%d at %s" % (esc(seq), len(offs), offs[:8]))
dcs = list(re.finditer(rb"\x1bP(.*?)\x1b\\", raw, re.S))
print("DCS sequences: %d" % len(dcs))
for m in dcs:
    print("  %s at %d" % (esc(m.group(0)), m.start()))
spans = [(m.start(), m.end()) for m in osc]
lone = [i for i, b in enumerate(raw) if b == 7 and not any(s <= i < e for s, e in spans)]
print("standalone BEL (0x07 not terminating an OSC): %d at %s" % (len(lone), lone[:20]))
for i in lone:
    print("  context: %s[BEL]%s" % (esc(raw[max(0, i-60):i]), esc(raw[i+1:i+60])))
for needle in (b"hello", b"ttl", b"blocked", b"stopped", b"denied", b"]52", b"e30=", b"]99;", b"]0099", b"]2;a", b"SYSMSG"):
    offs = [m.start() for m in re.finditer(re.escape(needle), raw)]
    print("needle %-10s %d hit(s)" % (esc(needle), len(offs)))
    for i in offs[:6]:
        print("    @%d: %s" % (i, esc(raw[max(0, i-40):i+len(needle)+40])))
