#!/usr/bin/env node
// extract_settings_schema.js — carve Claude Code 2.1.332's settings-file code out of its Bun binary into a plain
// Node script, cc_settings_schema_extracted.js, for ../claude/gen_settings_types.js, check_settings_types.js and
// export_settings_cases.js (and export_answer_cases.js: the hook-answer schema is carved too).
//
//   npm install acorn        (once, in the directory it is run from)
//   node extract_settings_schema.js <path to the `claude` binary of @anthropic-ai/claude-code-linux-x64@2.1.332> \
//        [out = ../claude/cc_settings_schema_extracted.js]
//
// Then, from ../claude, with W the directory of the extracted file (run in an environment without CLAUDE_CODE_*
// variables: CLAUDE_CODE_ENABLE_XAA adds a setting to the schema):
//   CC_WORK=W node gen_settings_types.js --latch ../../src/dialect/claude/settings_types.json
//   CC_WORK=W node check_settings_types.js --compare          (the description against the schema: 5,382 of 5,406
//                                                             agree, the 24 others only by refinements latch leaves)
//   CC_WORK=W CC_OUT=../claude-2.1.332 node export_settings_cases.js
//   CC_WORK=W CC_OUT=../claude-2.1.332 node export_answer_cases.js
// The extracted file is some 740 KB of Claude Code's code; it is not kept in the repository.
//
// How: the binary's Bun module graph (the "---- Bun! ----" trailer) lists every module by name
// (/$bunfs/root/chunk-xxxxxxxx.js) with its source text. Each chunk is an ES module: its minified names are local to
// it, and it imports other chunks' names with `import{a,b}from"/$bunfs/root/chunk-….js"`. Starting from the roots
// below, every top-level declaration they need is found by following free identifiers (a chunk's own declarations
// first, then its imports, then Node's globals), across chunks. Each needed declaration is copied verbatim and
// defined lazily, on first use, as a property of its chunk's scope object; the code runs inside `with (scope)`, so the
// copied text keeps its own names. A chunk's top-level statements that touch a needed name (`eo(ns,{…})` filling a
// namespace object) run once at the end. What Node 20 cannot run is rewritten: `import.meta` becomes a small object
// with Node's `require`, `using x = …` becomes `const x = …`.
//
// 2.1.332 no longer bundles zod: its schemas are made with an in-house library of the same interface
// (chunk-j7rrrdnv.js: r() string, v() number, M() boolean, u() object, O() array, Te() record, dt() union,
// zr() discriminated union, P() literal, U() enum, Nc() preprocess, Q6() lazy, …), carved here like the rest.
//
// The roots (2.1.332's names, found by grepping the chunks for the texts they hold):
//   chunk-rkap53dk.js `wyt`  the whole settings schema: `$e=p(()=>new l2r(dr(dXt()),oc))`, `wyt=p(()=>$e().whole())`;
//                            dr() is the field table ("cleanupPeriodDays", …), l2r builds one object schema of it
//   chunk-rkap53dk.js `awe`  the schema for one document (`$e().forDocument(doc)`: the fields the document has)
//   chunk-fwa49gns.js `TA`   reads one settings file's text: `xje` copy (nesting cut at 64 levels), `so`, `We`/`he`,
//                            `Se` cleaning (warnings; some "fatal"), `awe(copy).safeParse(copy)`; settings:null = dropped
//   chunk-fwa49gns.js `xje`, `so`, `We`, `he`, `Se`   that cleaning, one step at a time
//   chunk-z2hgkt87.js `$Pe`  the hook answer schema; chunk-bqhgd24a.js `k8` reads a hook's stdout with it
// Globals the scripts use: NM (= wyt), uye (the cleaning in place, see below), awe, ccReadSettingsText (= TA),
// ccCleanSettings, evt (= $Pe), hdc (= k8), and the lists of the cleaning gen_settings_types.js hands to latch
// (ccManagedOnlyKeysList, ccAliases, ccNullDroppedKeys, ccGuardEvents, ccUnscannedKeys, ccKnownMarketplaceSources,
// ccKnownPluginSources).
'use strict';
const fs = require('fs');
const path = require('path');
let acorn;
try { acorn = require('acorn'); } catch { acorn = require(path.join(process.cwd(), 'node_modules', 'acorn')); }

const BIN = process.argv[2];
const OUT = process.argv[3] || path.join(__dirname, '..', 'claude', 'cc_settings_schema_extracted.js');
if (!BIN) { console.error('usage: node extract_settings_schema.js <claude binary> [out]'); process.exit(2); }

// ---- 1. the Bun module graph ---------------------------------------------------------------------------------------
function readModules(file) {
  const buf = fs.readFileSync(file);
  const trailer = buf.lastIndexOf(Buffer.from('\n---- Bun! ----\n'));
  if (trailer < 0) throw new Error('no Bun module graph in ' + file);
  // Offsets, just before the trailer: u64 byte_count, {u32 offset, u32 length} modules, u32 entry point,
  // {u32, u32} exec argv, u32 flags (32 bytes). Offsets are from the start of the graph's data.
  const o = trailer - 32;
  const byteCount = Number(buf.readBigUInt64LE(o));
  const modOff = buf.readUInt32LE(o + 8), modLen = buf.readUInt32LE(o + 12);
  const REC = 52; // name, contents, sourcemap, bytecode, module info, bytecode origin path (6 x {u32,u32}), 4 bytes
  for (let base = o - byteCount - 16; base <= o - byteCount + 16; base++) {
    const first = buf.readUInt32LE(base + modOff), firstLen = buf.readUInt32LE(base + modOff + 4);
    if (first + firstLen > buf.length - base || buf.toString('latin1', base + first, base + first + 7) !== '/$bunfs') continue;
    const mods = new Map();
    for (let r = 0; r + REC <= modLen; r += REC) {
      const p = base + modOff + r;
      const name = buf.toString('utf8', base + buf.readUInt32LE(p), base + buf.readUInt32LE(p) + buf.readUInt32LE(p + 4));
      const body = buf.toString('utf8', base + buf.readUInt32LE(p + 8), base + buf.readUInt32LE(p + 8) + buf.readUInt32LE(p + 12));
      mods.set(name.replace(/^\/\$bunfs\/root\//, ''), body);
    }
    return mods;
  }
  throw new Error('cannot place the Bun module graph');
}

// ---- 2. one chunk: its top-level declarations, imports and exports ------------------------------------------------
const OPTS = { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true };
const chunks = new Map();
let MODULES;
function chunk(name) {
  let c = chunks.get(name);
  if (c) return c;
  const src = MODULES.get(name);
  if (src === undefined) throw new Error('no module ' + name);
  const ast = acorn.parse(src, OPTS);
  c = { name, src, decls: new Map(), imports: new Map(), exports: new Map(), others: [] };
  for (const st of ast.body) {
    switch (st.type) {
      case 'ImportDeclaration': {
        const raw = st.source.value, from = raw.replace(/^\/\$bunfs\/root\//, '');
        const builtin = !raw.startsWith('/$bunfs/');
        for (const s of st.specifiers) {
          const imported = s.type === 'ImportSpecifier' ? s.imported.name : s.type === 'ImportDefaultSpecifier' ? 'default' : '*';
          if (!builtin && imported !== s.local.name && s.type !== 'ImportSpecifier') throw new Error(`${name}: ${s.type} import`);
          c.imports.set(s.local.name, { from, imported, builtin });
        }
        break;
      }
      case 'ExportNamedDeclaration':
        if (st.declaration || st.source) throw new Error(`${name}: export form not handled`);
        for (const s of st.specifiers) c.exports.set(s.exported.name, s.local.name);
        break;
      case 'FunctionDeclaration': case 'ClassDeclaration':
        c.decls.set(st.id.name, { kind: st.type === 'ClassDeclaration' ? 'class' : 'function', node: st });
        break;
      case 'VariableDeclaration':
        for (const d of st.declarations) {
          if (d.id.type === 'Identifier') { c.decls.set(d.id.name, { kind: 'var', node: d }); continue; }
          // `var {a:x,b:y}=z`: one unit defining several names
          const names = [];
          (function ids(p) {
            if (!p) return;
            if (p.type === 'Identifier') names.push(p.name);
            else if (p.type === 'ObjectPattern') p.properties.forEach((q) => ids(q.type === 'RestElement' ? q.argument : q.value));
            else if (p.type === 'ArrayPattern') p.elements.forEach(ids);
            else if (p.type === 'RestElement') ids(p.argument);
            else if (p.type === 'AssignmentPattern') ids(p.left);
          })(d.id);
          const unit = { kind: 'pattern', node: d, names };
          for (const n of names) c.decls.set(n, unit);
        }
        break;
      default: c.others.push(st);
    }
  }
  chunks.set(name, c);
  return c;
}

// free identifiers of a node (after build_settings_schema.js of 2.1.197)
function freeIds(node) {
  const used = new Set(), declared = new Set();
  function addPattern(p) {
    if (!p) return;
    switch (p.type) {
      case 'Identifier': declared.add(p.name); break;
      case 'ObjectPattern': p.properties.forEach((q) => (q.type === 'RestElement' ? addPattern(q.argument) : (q.computed && walk(q.key), addPattern(q.value)))); break;
      case 'ArrayPattern': p.elements.forEach(addPattern); break;
      case 'RestElement': addPattern(p.argument); break;
      case 'AssignmentPattern': addPattern(p.left); walk(p.right); break;
      case 'MemberExpression': walk(p); break;
    }
  }
  function walk(n) {
    if (!n || typeof n.type !== 'string') return;
    switch (n.type) {
      case 'Identifier': used.add(n.name); return;
      case 'MemberExpression': walk(n.object); if (n.computed) walk(n.property); return;
      case 'Property': case 'MethodDefinition': case 'PropertyDefinition': if (n.computed) walk(n.key); walk(n.value); return;
      case 'FunctionDeclaration': case 'FunctionExpression': case 'ArrowFunctionExpression':
        if (n.id) declared.add(n.id.name); n.params.forEach(addPattern); walk(n.body); return;
      case 'VariableDeclarator': addPattern(n.id); walk(n.init); return;
      case 'CatchClause': addPattern(n.param); walk(n.body); return;
      case 'ClassDeclaration': case 'ClassExpression': if (n.id) declared.add(n.id.name); walk(n.superClass); walk(n.body); return;
      case 'LabeledStatement': walk(n.body); return;
      case 'BreakStatement': case 'ContinueStatement': case 'MetaProperty': return;
      case 'AssignmentExpression': addPattern(n.left); walk(n.right); return;
      case 'ForInStatement': case 'ForOfStatement': if (n.left.type === 'VariableDeclaration') walk(n.left); else addPattern(n.left); walk(n.right); walk(n.body); return;
    }
    for (const k in n) {
      if (k === 'type' || k === 'start' || k === 'end') continue;
      const v = n[k];
      if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v.type === 'string') walk(v);
    }
  }
  walk(node);
  // a name both declared somewhere inside and used is treated as local (minified code reuses short names per scope;
  // a name declared in an inner scope and also meant free in another would be missed: checked by running the result)
  return [...used].filter((x) => !declared.has(x));
}
const GLOBALS = new Set(Object.getOwnPropertyNames(globalThis).concat(['require', 'process', 'Buffer', 'console', 'module',
  'exports', '__dirname', '__filename', 'undefined', 'arguments', 'Bun', 'atob', 'btoa', 'URL', 'structuredClone']));

// ---- 3. the closure of the roots -----------------------------------------------------------------------------------
const needed = new Map(); // `${chunk}\0${local}` -> {chunk, local, kind, code | alias}
const notes = [];
function need(cname, local) {
  const key = cname + '\0' + local;
  if (needed.has(key)) return;
  const c = chunk(cname);
  const imp = c.imports.get(local);
  if (imp && imp.builtin) { // a Node module (`node:fs`, `net`, …)
    const req = `require(${JSON.stringify(imp.from)})`;
    const code = imp.imported === '*' ? req : imp.imported === 'default' ? `(${req}.default ?? ${req})` : `${req}[${JSON.stringify(imp.imported)}]`;
    needed.set(key, { chunk: cname, local, kind: 'builtin', code });
    return;
  }
  if (imp) {
    const target = chunk(imp.from);
    const tlocal = target.exports.get(imp.imported);
    if (tlocal === undefined) throw new Error(`${imp.from} does not export ${imp.imported}`);
    needed.set(key, { chunk: cname, local, kind: 'alias', to: [imp.from, tlocal] });
    need(imp.from, tlocal);
    return;
  }
  const d = c.decls.get(local);
  if (!d) { notes.push(`unresolved ${local} in ${cname}`); return; }
  const n = d.node;
  if (d.kind === 'pattern') {
    for (const x of d.names) needed.set(cname + '\0' + x, { chunk: cname, local: x, kind: 'pattern', unit: d });
    if (d.emitted) return;
    d.emitted = true;
    d.code = c.src.slice(n.start, n.end);
    for (const f of freeIds(n)) {
      if (c.decls.has(f) || c.imports.has(f)) need(cname, f);
      else if (!GLOBALS.has(f)) notes.push(`free ${f} in ${cname}:${d.names.join(',')} (left to the global scope)`);
    }
    needed.set(cname + '\0' + d.names[0], { chunk: cname, local: d.names[0], kind: 'pattern', unit: d, first: true });
    return;
  }
  const codeNode = d.kind === 'var' ? n.init : n;
  const code = codeNode ? c.src.slice(codeNode.start, codeNode.end) : null;
  needed.set(key, { chunk: cname, local, kind: d.kind, code, node: codeNode });
  if (!codeNode) return;
  for (const f of freeIds(codeNode)) {
    if (f === local && d.kind !== 'var') continue;
    if (c.decls.has(f) || c.imports.has(f)) need(cname, f);
    else if (!GLOBALS.has(f)) notes.push(`free ${f} in ${cname}:${local} (left to the global scope)`);
  }
}

MODULES = readModules(BIN);
const version = /\/\/ Version: (\S+)/.exec(MODULES.get('chunk-rkap53dk.js') || '')?.[1];
if (version !== '2.1.332') throw new Error(`this script knows the names of 2.1.332; the binary says ${version}`);

const ROOTS = {
  NM: ['chunk-rkap53dk.js', 'wyt'],
  awe: ['chunk-rkap53dk.js', 'awe'],
  ccReadSettingsText: ['chunk-fwa49gns.js', 'TA'],
  ccCopySettings: ['chunk-fwa49gns.js', 'xje'],
  ccManagedOnlyKeys: ['chunk-fwa49gns.js', 'so'],
  ccKeepDropped: ['chunk-fwa49gns.js', 'We'],
  ccNestingErrors: ['chunk-fwa49gns.js', 'he'],
  ccSanitiseSettings: ['chunk-fwa49gns.js', 'Se'],
  ccIssueMessages: ['chunk-fwa49gns.js', 'ye'],
  // the hook answer schema (out_schema_332.txt): `$Pe=p(()=>…)`, the async form or NM() (2.1.197's `evt`),
  // and k8, which reads a hook's stdout (2.1.197's `hdc`): {json} | {plainText, validationError}
  // lists of the cleaning, for gen_settings_types.js to hand to latch
  ccManagedOnlyKeysList: ['chunk-fwa49gns.js', 'omd'],   // removed from a file that is not managed policy (`so`)
  ccAliases: ['chunk-rkap53dk.js', 'wrt'],               // {alias, canonical} (`uwe`)
  ccNullDroppedKeys: ['chunk-rkap53dk.js', 'jqs'],       // a function: keys whose null is removed (`Fr`)
  ccGuardEvents: ['chunk-46gfqyds.js', 'FV'],            // the events whose hooks guard (`pe`, `Y6`, `Tr`)
  ccUnscannedKeys: ['chunk-46gfqyds.js', 'Oed'],         // keys `bwe` does not search for guard hooks
  ccKnownMarketplaceSources: ['chunk-46gfqyds.js', 'Med'], // `Wr` keeps an entry of another source type
  ccKnownPluginSources: ['chunk-46gfqyds.js', 'gn'],     // `tka`: a plugin source of another type keeps its entry
  evt: ['chunk-z2hgkt87.js', '$Pe'],
  hdc: ['chunk-bqhgd24a.js', 'k8'],
};
for (const [g, [c, l]] of Object.entries(ROOTS)) need(c, l);

// A chunk's top-level statements that are not declarations (`eo(ns,{KEY:()=>v,…})` filling a namespace object, a
// registration call) run once, after the definitions, when they touch a needed name; what they use is needed too.
const statements = [];
for (let grew = true; grew;) {
  grew = false;
  for (const c of [...chunks.values()]) {
    for (const st of c.others) {
      if (st.taken) continue;
      const ids = freeIds(st);
      if (!ids.some((f) => needed.has(c.name + '\0' + f))) continue;
      st.taken = true; grew = true;
      statements.push({ chunk: c.name, node: st, code: c.src.slice(st.start, st.end) });
      for (const f of ids) {
        if (c.decls.has(f) || c.imports.has(f)) need(c.name, f);
        else if (!GLOBALS.has(f)) notes.push(`free ${f} in a top-level statement of ${c.name}`);
      }
    }
  }
}
for (const c of chunks.values()) for (const st of c.others) if (!st.taken) notes.push(`left out: top-level statement of ${c.name}: ${c.src.slice(st.start, st.start + 100)}`);

// ---- 4. emit -------------------------------------------------------------------------------------------------------
// What Node 20 cannot run, rewritten: `import.meta` -> __importMeta; `using x = …` -> `const x = …` (its disposal,
// which closes a trace span, is left out).
function rewriteMeta(code, node) {
  const edits = [];
  (function walk(n) {
    if (!n || typeof n.type !== 'string') return;
    if (n.type === 'MetaProperty' && n.meta.name === 'import') { edits.push([n.start, n.end, '__importMeta']); return; }
    if (n.type === 'VariableDeclaration' && /using$/.test(n.kind)) {
      const kw = /^(await\s+)?using/.exec(code.slice(n.start - node.start));
      edits.push([n.start, n.start + kw[0].length, 'const']);
    }
    for (const k in n) { const v = n[k]; if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v.type === 'string') walk(v); }
  })(node);
  let out = code;
  for (const [s, e, r] of edits.sort((x, y) => y[0] - x[0])) out = out.slice(0, s - node.start) + r + out.slice(e - node.start);
  return out;
}
const scopeOf = (c) => '$' + c.replace(/^chunk-/, '').replace(/\.js$/, '').replace(/[^\w$]/g, '_');
const used = [...new Set([...needed.values()].map((n) => n.chunk))].sort();
let js = `// AUTO-GENERATED by recordings/claude-2.1.332/extract_settings_schema.js from the Bun module graph of Claude Code ${version}.
// Verbatim declarations of ${used.length} chunks, each run lazily inside \`with\` its chunk's scope; see that script.
/* eslint-disable */
const __importMeta = { require, url: 'file://' + __filename, dir: __dirname, path: __filename, main: false, env: process.env };
function __scope() { return Object.create(null); }
function __lazy(s, n, f) { let v, d = false; Object.defineProperty(s, n, { configurable: true, enumerable: true, get() { if (!d) { d = true; v = f(); } return v; }, set(x) { v = x; d = true; } }); }
function __lazyPattern(s, names, f) { let v; for (const n of names) Object.defineProperty(s, n, { configurable: true, enumerable: true, get() { v ??= f(); return v[n]; }, set(x) { v ??= f(); v[n] = x; } }); }
function __alias(s, n, t, m) { Object.defineProperty(s, n, { configurable: true, enumerable: true, get() { return t[m]; }, set(x) { t[m] = x; } }); }
`;
for (const c of used) js += `const ${scopeOf(c)} = __scope();\n`;
for (const n of [...needed.values()].sort((a, b) => (a.chunk < b.chunk ? -1 : a.chunk > b.chunk ? 1 : 0))) {
  const s = scopeOf(n.chunk);
  if (n.kind === 'pattern') {
    if (!n.first) continue;
    const names = n.unit.names;
    const { node: dn } = n.unit, src = chunks.get(n.chunk).src;
    const pat = src.slice(dn.id.start, dn.id.end), init = rewriteMeta(src.slice(dn.init.start, dn.init.end), dn.init);
    js += `__lazyPattern(${s}, ${JSON.stringify(names)}, () => { with (${s}) { let ${names.join(', ')}; (${pat} = (${init})); return { ${names.join(', ')} }; } });\n`;
    continue;
  }
  if (n.kind === 'alias') { js += `__alias(${s}, ${JSON.stringify(n.local)}, ${scopeOf(n.to[0])}, ${JSON.stringify(n.to[1])});\n`; continue; }
  if (n.kind === 'builtin') { js += `__lazy(${s}, ${JSON.stringify(n.local)}, () => ${n.code});\n`; continue; }
  if (n.code === null) { js += `__lazy(${s}, ${JSON.stringify(n.local)}, () => undefined);\n`; continue; }
  js += `__lazy(${s}, ${JSON.stringify(n.local)}, () => { with (${s}) { return (${rewriteMeta(n.code, n.node)}); } });\n`;
}
js += '\n// top-level statements of the chunks (in chunk order, then file order)\n';
for (const st of statements.sort((a, b) => (a.chunk < b.chunk ? -1 : a.chunk > b.chunk ? 1 : a.node.start - b.node.start))) {
  js += `with (${scopeOf(st.chunk)}) { ${rewriteMeta(st.code, st.node)} }\n`;
}
js += '\n// the globals the scripts read\n';
for (const [g, [c, l]] of Object.entries(ROOTS)) js += `Object.defineProperty(globalThis, ${JSON.stringify(g)}, { configurable: true, get() { return ${scopeOf(c)}[${JSON.stringify(l)}]; } });\n`;
js += `
// The cleaning of TA (a settings file that is not managed policy), one step at a time, on a copy:
// returns { copy, errors } as TA computes them before its schema check.
globalThis.ccCleanSettings = function (value, file) {
  const a = ccCopySettings(value), l = a.copy;
  const errors = [...ccManagedOnlyKeys(l, file), ...ccNestingErrors(ccKeepDropped(l, a), file, true), ...ccSanitiseSettings(l, file)];
  return { copy: l, errors };
};
// 2.1.197's name: clean \`value\` in place (its keys replaced by those of the cleaned copy).
globalThis.uye = function (value, file) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const { copy, errors } = ccCleanSettings(value, file);
  for (const k of Object.keys(value)) delete value[k];
  if (typeof copy === 'object' && copy !== null) // own keys, "__proto__" included, as JSON.parse makes them
    for (const k of Object.keys(copy)) Object.defineProperty(value, k, { value: copy[k], enumerable: true, writable: true, configurable: true });
  return errors;
};
module.exports = { version: ${JSON.stringify(version)} };
`;
fs.writeFileSync(OUT, js);
console.error(`${OUT}: ${used.length} chunks, ${needed.size} names, ${js.length} bytes; roots ${JSON.stringify(ROOTS)}`);
for (const n of [...new Set(notes)]) console.error('NOTE', n);
