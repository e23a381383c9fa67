#!/usr/bin/env node
// export_settings_cases.js — dump every settings-file case used by `node check_settings_types.js --compare` as JSONL.
//
//   CC_WORK=<dir with cc_settings_schema_extracted.js and claude-settings-types.json> CC_OUT=<dir> node export_settings_cases.js
//   (2.1.332: CC_OUT=../claude-2.1.332; both default to this directory)
//
// Writes settings-cases.jsonl, one object per line:
//   {"input": <raw settings value, before the cleaning>,
//    "accepted": <Claude Code keeps the file>,
//    "refine_only": <the schema rejected and every issue has code "custom">,
//    "fatal": <2.1.332: the cleaning dropped the file (an error of severity "fatal"), whatever the schema said>,
//    "issues": [<first issue path joined with ".">, <first issue message>]   ([] when accepted)}
// 2.1.197: accepted = NM().safeParse(uye(copy)).success. 2.1.332: accepted = TA(text).settings !== null, TA being
// the function that reads a settings file that is not managed policy (its cleaning, awe(copy).safeParse, no fatal
// error); the script checks that TA's verdict is the schema's and the cleaning's, and the issue is the schema's first
// (or, when only the cleaning drops the file, its first fatal error).
// If the file exceeds 3 MB it also writes settings-cases-sample.jsonl (<= 1500 lines, deterministic).
//
// The case list is not copied: the case-building part of check_settings_types.js's --compare block (everything
// between its opening line and "// run both") is sliced out of that file at run time and compiled together with
// the rest of it, so this export always matches what --compare uses.
// Skipped: texts that are not JSON ('' empty file, '{bad json'), values whose top level is not an object, and values
// that JSON cannot represent faithfully (NaN/±Infinity, e.g. 1e400; undefined/functions cannot arise from JSON.parse).
// Every input is normalised to JSON.stringify(JSON.parse(text)) (so -0 becomes 0) and accepted/issues are computed on
// that normalised value, so each line is self-consistent. Duplicates (same normalised text) are dropped; first wins.
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');

const DIR = __dirname;
const OUT_DIR = process.env.CC_OUT || DIR;
const OUT = path.join(OUT_DIR, 'settings-cases.jsonl');
const SAMPLE_OUT = path.join(OUT_DIR, 'settings-cases-sample.jsonl');
const SAMPLE_MAX = 1500;
const SAMPLE_THRESHOLD = 3 * 1024 * 1024;

// ---- 1. get the case list from check_settings_types.js ----------------------------------------------------------
function loadCases() {
  const file = path.join(DIR, 'check_settings_types.js');
  const src = fs.readFileSync(file, 'utf8');
  const head = "if (require.main === module && process.argv[2] === '--compare') {";
  const i = src.indexOf(head);
  const j = src.indexOf('// run both', i);
  if (i < 0 || j < 0) throw new Error('check_settings_types.js layout changed: cannot find the --compare case-building block');
  const patched = src.slice(0, i) + '{' + src.slice(i + head.length, j) +
    '\nmodule.exports.__exported = { cases, nReport, nFixed };\n}\n';
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(DIR);
  m._compile(patched, file); // also loads cc_settings_schema_extracted.js (defines globalThis.uye / NM)
  return m.exports.__exported;
}

// ---- 2. helpers ---------------------------------------------------------------------------------------------------
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
function jsonFaithful(v) { // only values JSON can represent exactly
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonFaithful);
  if (typeof v === 'object') return Object.values(v).every(jsonFaithful);
  return false; // undefined, function, symbol, bigint
}
// every issue is a refinement's (code "custom"), or a union's of which one option failed on refinements only
function refinementsOnly(issues) {
  return issues.every((x) => x.code === 'custom' || (x.code === 'invalid_union' && x.errors.some((o) => o.length > 0 && refinementsOnly(o))));
}
function hasLoneSurrogate(s) { return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s); }

// ---- 3. build the records -----------------------------------------------------------------------------------------
const { cases, nReport, nFixed } = loadCases();
const seen = new Set();
const records = [];
const skipped = { notJson: 0, notObject: 0, notFaithful: 0, duplicate: 0 };
const bySource = {};
cases.forEach(([label, text], idx) => {
  const source = idx < nReport ? 'report+run_settings' : idx < nFixed ? 'edge' : 'generated';
  let value;
  try { value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text); } catch { skipped.notJson++; return; } // '' and '{bad json' land here
  if (!isObj(value)) { skipped.notObject++; return; }
  if (!jsonFaithful(value)) { skipped.notFaithful++; return; }
  const key = JSON.stringify(value);
  if (seen.has(key)) { skipped.duplicate++; return; }
  seen.add(key);
  const input = JSON.parse(key); // normalised (e.g. -0 -> 0)
  let rec;
  if (typeof ccReadSettingsText !== 'function') { // 2.1.197
    const cleaned = structuredClone(input);
    uye(cleaned, 'settings.json'); // eslint-disable-line no-undef -- global from cc_settings_schema_extracted.js
    const z = NM().safeParse(cleaned); // eslint-disable-line no-undef
    const accepted = z.success;
    const refine_only = !accepted && z.error.issues.every((x) => x.code === 'custom');
    const first = accepted ? null : z.error.issues[0];
    rec = { input, accepted, refine_only, issues: first ? [first.path.map(String).join('.'), first.message] : [] };
  } else { // 2.1.332
    const read = ccReadSettingsText(key, 'settings.json'); // eslint-disable-line no-undef
    const accepted = read.settings !== null;
    const { copy, errors } = ccCleanSettings(structuredClone(input), 'settings.json'); // eslint-disable-line no-undef
    const z = awe(copy).safeParse(copy); // eslint-disable-line no-undef
    const fatal = errors.find((e) => e.severity === 'fatal');
    if (accepted !== (z.success && !fatal)) throw new Error('TA and its steps disagree on ' + key);
    const refine_only = !z.success && !fatal && refinementsOnly(z.error.issues);
    const first = z.success ? null : z.error.issues[0];
    const issues = first ? [first.path.map(String).join('.'), first.message] : fatal ? [fatal.path, fatal.message] : [];
    rec = { input, accepted, refine_only, fatal: z.success && !!fatal, issues };
  }
  records.push({ rec, line: JSON.stringify(rec), source, keys: Object.keys(input) });
  bySource[source] = (bySource[source] || 0) + 1;
});

fs.writeFileSync(OUT, records.map((r) => r.line).join('\n') + '\n');
const size = fs.statSync(OUT).size;
const nAcc = records.filter((r) => r.rec.accepted).length;
const nRefine = records.filter((r) => r.rec.refine_only).length;
const lone = records.filter((r) => hasLoneSurrogate(r.line)).length;
console.log(`cases in check_settings_types.js --compare: ${cases.length}`);
console.log(`skipped: not JSON ${skipped.notJson}, top level not an object ${skipped.notObject}, NaN/Infinity ${skipped.notFaithful}, duplicates ${skipped.duplicate}`);
console.log(`written: ${records.length} (by source: ${Object.entries(bySource).map(([k, v]) => `${k} ${v}`).join(', ')})`);
console.log(`accepted: ${nAcc}, rejected: ${records.length - nAcc} (refine_only: ${nRefine})`);
if (lone) console.log(`note: ${lone} lines contain a lone UTF-16 surrogate escape`);
console.log(`${OUT}: ${size} bytes (${(size / 1048576).toFixed(2)} MiB)`);

// ---- 4. sample when the file is large ------------------------------------------------------------------------------
// Keep every rejected case that is not a hooks-only case (top-level keys exactly ["hooks"]), then fill the remaining
// slots with an even spread (evenly spaced indices, file order) of the rest. Output keeps file order.
if (size > SAMPLE_THRESHOLD) {
  const isHooksOnly = (r) => r.keys.length === 1 && r.keys[0] === 'hooks';
  const must = [], rest = [];
  records.forEach((r, i) => ((!r.rec.accepted && !isHooksOnly(r)) ? must : rest).push(i));
  if (must.length > SAMPLE_MAX) throw new Error(`${must.length} must-keep cases exceed the sample limit ${SAMPLE_MAX}`);
  const slots = Math.min(SAMPLE_MAX - must.length, rest.length);
  const picked = new Set(must);
  for (let k = 0; k < slots; k++) picked.add(rest[Math.floor((k * rest.length) / slots)]);
  const idx = [...picked].sort((a, b) => a - b);
  fs.writeFileSync(SAMPLE_OUT, idx.map((i) => records[i].line).join('\n') + '\n');
  const s = fs.statSync(SAMPLE_OUT).size;
  const sAcc = idx.filter((i) => records[i].rec.accepted).length;
  console.log(`sample: ${idx.length} lines (${must.length} rejected non-hooks kept + ${idx.length - must.length} of ${rest.length} others evenly spread), accepted ${sAcc}`);
  console.log(`${SAMPLE_OUT}: ${s} bytes (${(s / 1048576).toFixed(2)} MiB)`);
} else if (fs.existsSync(SAMPLE_OUT)) {
  console.log(`(file is under 3 MB; no sample needed — stale ${SAMPLE_OUT} left untouched)`);
}
