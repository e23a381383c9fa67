#!/usr/bin/env node
// export_terminal_cases.js — what Claude Code 2.1.197 does with a hook's `terminalSequence`, as JSONL.
//
//   node export_terminal_cases.js <path to Claude Code's cli.js bundle>
//
// Writes terminal-cases.jsonl, one object per line: {"text": <the hook's terminalSequence>, "out": <what Claude Code
// writes, or null when it refuses the text>}. The functions are the bundle's own (Yqf, Xqf, Jqf, E4o, read from the
// file and evaluated), with its constants; the terminal is taken to be neither kitty (which gets `ESC \` endings) nor
// inside tmux or screen (which get a passthrough wrapper): latch leaves those to the harness.
'use strict';
const fs = require('fs');
const path = require('path');

const bundle = fs.readFileSync(process.argv[2], 'utf8');
function fn(name) {
  const start = bundle.indexOf(`function ${name}(`);
  if (start < 0) throw new Error(`no function ${name}`);
  // The functions are small and brace-balanced; strings hold no braces.
  let depth = 0;
  for (let i = bundle.indexOf('{', start); i < bundle.length; i++) {
    if (bundle[i] === '{') depth++;
    else if (bundle[i] === '}' && --depth === 0) return bundle.slice(start, i + 1);
  }
  throw new Error(`unbalanced ${name}`);
}
const L8 = '\x1B', s$ = '\x07', zqf = new Set([0, 1, 2, 9, 99, 777]), Kqf = 4096;
const U_ = (...e) => `${L8}]${e.join(';')}${s$}`;
const pk = (e) => e;
const E4o = new Function('L8', 's$', 'zqf', 'Kqf', 'U_', 'pk', 'Buffer',
  [fn('Yqf'), fn('Xqf'), fn('Jqf'), fn('E4o'), 'return E4o;'].join('\n'))(L8, s$, zqf, Kqf, U_, pk, Buffer);

const texts = new Set();
const add = (t) => texts.add(t);
// Hand-written cases.
for (const t of ['', '\x07', '\x07\x07', 'x', '\x1B[31m', '\x1B]9;hello\x07', '\x1B]9;hello\x1B\\', '\x1B]0;t\x07',
  '\x1B]1;t\x07', '\x1B]2;t\x07', '\x1B]99;i=1;hello\x07', '\x1B]777;notify;T;B\x07', '\x1B]52;c;e30=\x07',
  '\x1B]2\x07', '\x1B];x\x07', '\x1B]0099;x\x07', '\x1B]+9;x\x07', '\x1B]9;4;1;50\x07', '\x1B]9;4;5\x07',
  '\x1B]9;4;0;\x07', '\x1B]9;4;1;100\x07', '\x1B]9;4;1;101\x07', '\x1B]9;12\x07', '\x1B]9; 3\x07', '\x1B]9;-3\x07',
  '\x1B]9;\u00a03\x07', '\x1B]9;\ufeff3\x07', '\x1B]9;\u200b3\x07', '\x1B]9;\u180e-3\x07', '\x1B]9;\u0663\x07',
  '\x1B]9;\uff13\x07', '\x1B]9;\u00b2\x07', '\x1B]9;\u2162\x07', '\x1B]9;\t3\x07', '\x1B]9;\u00853\x07',
  '\x1B]2;a\tb\u009bc\u007fd\u00e9\x07', '\x1B]9;hi', '\x1B]9;h\x1Bi\x07', '\x1B]2;\ud83d\ude00\x07',
  '\x1B]2;' + 'x'.repeat(4090) + '\x07', '\x1B]2;' + 'x'.repeat(4091) + '\x07', '\x1B]2;' + '\u00e9'.repeat(2046) + '\x07',
  '\x1B]2;' + '\u00e9'.repeat(2047) + '\x07', '\x1B]9;\u30003\x07', '\x1B]9;\u20283\x07', '\x1B]9;\u16803\x07',
  '\x1B]9;\u1d7ce\x07', '\x1B]9;\ud835\udfce\x07', '\x1B]0000;x\x07', '\x1B]00000777;x\x07', '\x1B]9;4;\x07',
  '\x1B]9;4\x07', '\x1B]9;4;1;5;\x07', '\x1B]9;4;1;05\x07']) add(t);
// Random ones: runs of parts that are mostly well formed, with characters that matter in the texts.
const numbers = ['0', '1', '2', '9', '9', '9', '99', '777', '52', '09', '3', '', 'x'];
const chars = ['0', '1', '3', '4', '5', '9', ';', ';', 'a', ' ', '-', '+', '\t', '\u009b', '\u00a0', '\u0663',
  '\u00e9', '\u200b', '\x1B', '\x07', '\\', '100', '4;'];
let seed = 12345;
const rand = (n) => { seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff; return seed % n; };
const pick = (xs) => xs[rand(xs.length)];
while (texts.size < 3000) {
  let t = '';
  const parts = 1 + rand(3);
  for (let p = 0; p < parts; p++) {
    if (rand(5) === 0) { t += '\x07'; continue; }
    t += rand(20) === 0 ? pick(['\x1B[', 'x', '\x1B']) : '\x1B]';
    t += pick(numbers);
    if (rand(6)) t += ';';
    const len = rand(6);
    for (let i = 0; i < len; i++) t += pick(chars);
    const end = rand(10);
    t += end < 6 ? '\x07' : end < 9 ? '\x1B\\' : '';
  }
  add(t);
}
const lines = [...texts].map((text) => JSON.stringify({ text, out: E4o(text) }));
fs.writeFileSync(path.join(__dirname, 'terminal-cases.jsonl'), lines.join('\n') + '\n');
console.log(`${lines.length} cases, ${lines.filter((l) => !l.endsWith('"out":null}')).length} accepted`);
