"""visible-cases.jsonl: texts and what Claude Code 2.1.332 shows of them on
one line (`_h` over `y1`, carved from the bundle), for the agreement test of
src/dialect/claude/visible.rs. Run: python3 make_visible_cases.py BUNDLE.js
(BUNDLE.js: the JavaScript carved out of the binary by carve2.py); needs node."""
import json, random, subprocess, sys

src = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
i = src.find("function y1(t){")
j = src.find("function o5(t)", i)
code = src[i:j] + "\nconst t=JSON.parse(require('fs').readFileSync(0,'utf8'));console.log(JSON.stringify(t.map(_h)));\n"
random.seed(7)
pool = ["a", "1", "#", "\n", "\t", "\r", "\x1b", "\x7f", "\x85", "\u200b", "\u200d", "\ufe0f", "\ufe0e",
        "\u20e3", "\u2764", "\U0001F468", "\U0001F469", "\U0001F3F4", "\U000E0067", "\U000E0062",
        "\U000E0073", "\U000E0063", "\U000E0074", "\U000E007F", "\U0001F3FD", "\u00ad", "\u2028",
        "\u034f", "\u115f", "\u00e9", "\u0301", "\U0001F1FA", "\U0001F1F8", " "]
texts = ["".join(random.choice(pool) for _ in range(random.randint(0, 12))) for _ in range(1500)]
texts += ["x\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007Fy", "a1\ufe0f\u20e3b",
          "\U0001F468\u200d\U0001F469\u200d\U0001F467", "echo 'done'\r\n\tnext", "\x00\x01\x1f"]
# A keycap or tag flag that is not a whole grapheme (a mark, a joiner or a
# selector after it, a prepended character or an emoji and joiner before).
KEYCAP, FLAG = "1\ufe0f\u20e3", "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"
for seq in (KEYCAP, FLAG):
    for after in ("", "\u200d", "\ufe0f", "\u0301", "\u0903", "a", "\U0001F468"):
        for before in ("", "\u0600", "x", "\U0001F468\u200d", "\U0001F468\u0301\u200d", "\u200d"):
            texts.append(before + seq + after)
shown = json.loads(subprocess.run(["node", "-e", code], input=json.dumps(texts), capture_output=True,
                                  text=True, check=True).stdout)
with open("visible-cases.jsonl", "w") as f:
    for t, s in zip(texts, shown):
        f.write(json.dumps([t, s]) + "\n")
print(len(texts), "cases")
