#!/usr/bin/env node
// gen_types.js — walk Claude Code 2.1.197's real settings zod schema NM() (zod v4 `_zod.def` objects, loaded from
// cc_settings_schema_extracted.js) and emit claude-settings-types.json, a compact type grammar latch can embed.
//
// Grammar (every TYPE is a JSON object with "t"):
//   any | string{url,min,max,length,regex:[src..],regexFlags,startsWith} | number{int,min,max,exclusiveMin,exclusiveMax}
//   boolean | null | undefined | never | literal{values} | enum{values} | array{items,min,max,length}
//   record{keys,values,partial} | object{fields,unknown:strip|passthrough|strict|(catchall TYPE)}
//   union{options} | discriminated{key,options}
// modifiers on any TYPE: optional, nullable, catch (+catchValue), default, coerce:"string"|"number"...,
//   refine (custom check source, truncated 300 chars), transform (pipe output transform source; the TYPE is the input side),
//   preprocess (pipe input transform source; the TYPE is the schema applied AFTER the preprocess function).
//   preprocessOp / transformOp: the same function as data, when its exact source is known:
//     {op:"filterArrayItemsIn",values} | {op:"replaceValue",from,to} | {op:"absolutePathElseUndefined"} | {op:"dropCatchSentinels"} | {op:"identity"}
//   catchSentinel:true: the catch value is a private sentinel object (catchValue shows its JSON), removed later by dropCatchSentinels.
//   refineMessages: the error messages of the refinements (parallel to the "---"-separated sources in refine).
// "int":true means zod's safeint format: Number.isInteger(v) && |v| <= 2^53-1.
// "regex" is always a list of JS RegExp sources (all must match); "regexFlags" parallel list when any flag is set.
'use strict';
require('./cc_settings_schema_extracted.js');
const fs = require('fs');

const TRUNC = 300;
const src = (f) => { let s = String(f); s = s.replace(/\s+/g, ' '); return s.length > TRUNC ? s.slice(0, TRUNC) + '…' : s; };
const warnings = [];

function jsonable(v) {
  if (v === undefined) return { undefined: true };
  try { const s = JSON.stringify(v); if (s === undefined) return { unserializable: String(v) }; return { value: JSON.parse(s) }; }
  catch { return { unserializable: String(v) }; }
}

// superRefine() hides the user function in a closure; recover its source text from the extracted bundle code.
let superRefineSources = null;
function customSource(c) {
  const cd = c._zod.def;
  if (cd.fn) return (cd.type === 'custom' ? 'refine: ' : '') + src(cd.fn);
  const chk = String(c._zod.check);
  if (!/payload\.addIssue\s*=/.test(chk)) return 'check: ' + src(chk);
  if (!superRefineSources) {
    const acorn = require('acorn');
    const code = fs.readFileSync(__dirname + '/cc_settings_schema_extracted.js', 'utf8');
    superRefineSources = new Set();
    (function walk(n) {
      if (!n || typeof n.type !== 'string') return;
      if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.property.name === 'superRefine')
        superRefineSources.add(code.slice(n.arguments[0].start, n.arguments[0].end));
      for (const k in n) { const v = n[k]; if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v.type === 'string') walk(v); }
    })(acorn.parse(code, { ecmaVersion: 'latest' }));
  }
  if (superRefineSources.size === 1) return 'superRefine: ' + src([...superRefineSources][0]);
  return 'superRefine (source not recoverable: ' + superRefineSources.size + ' candidates)';
}
// Function bodies that latch cannot run are translated to small data "ops" when the exact source text is known.
// Unknown sources get no op (and a warning), so a changed bundle is noticed.
function knownOp(fnSrc) {
  const norm = (x) => String(x).replace(/\s+/g, '');
  const f = norm(fnSrc);
  const KNOWN0 = {
    '(t)=>Array.isArray(t)?t.filter((n)=>fIe.includes(n)):t': () => ({ op: 'filterArrayItemsIn', values: [...globalThis.fIe] }),
    '(e)=>e==="."?"./":e': () => ({ op: 'replaceValue', from: '.', to: './' }),
    '(e)=>typeof e==="string"&&$Dr.isAbsolute(e)?e:void 0': () => ({ op: 'absolutePathElseUndefined', note: 'node path.isAbsolute (posix: starts with "/"); non-string or relative -> undefined' }),
    '(t)=>t.filter((n)=>n!==Cxs)': () => ({ op: 'dropCatchSentinels', note: 'array items that failed and were replaced by the catch sentinel are removed' }),
    '(t)=>t': () => ({ op: 'identity' }),
  };
  const KNOWN = Object.fromEntries(Object.entries(KNOWN0).map(([k, v]) => [norm(k), v]));
  if (KNOWN[f]) return KNOWN[f]();
  warnings.push('no op for function ' + f.slice(0, 120));
  return undefined;
}
function refineMessage(cd) {
  if (typeof cd.error !== 'function') return undefined;
  try { const r = cd.error({ code: 'custom', input: '<input>', path: [] }); return typeof r === 'string' ? r : r && r.message; } catch { return undefined; }
}
function addRefine(t, s) { t.refine = t.refine ? t.refine + '\n---\n' + s : s; }

const stack = new Set();
function describe(schema, path) {
  if (!schema || !schema._zod) throw new Error('not a zod schema at ' + path);
  if (stack.has(schema)) throw new Error('recursive schema at ' + path);
  stack.add(schema);
  try { return describeInner(schema, path); } finally { stack.delete(schema); }
}

function applyChecks(t, def, path) {
  for (const c of def.checks || []) {
    const cd = c._zod.def;
    switch (cd.check) {
      case 'number_format': {
        if (/int/.test(cd.format)) t.int = true; else warnings.push(`${path}: number format ${cd.format}`);
        if (cd.format !== 'safeint' && cd.format !== 'int32' && cd.format !== 'float64') t.format = cd.format;
        break;
      }
      case 'greater_than': if (cd.inclusive) t.min = cd.value; else t.exclusiveMin = cd.value; break;
      case 'less_than': if (cd.inclusive) t.max = cd.value; else t.exclusiveMax = cd.value; break;
      case 'min_length': t.min = Math.max(t.min ?? -Infinity, cd.minimum); break;
      case 'max_length': t.max = Math.min(t.max ?? Infinity, cd.maximum); break;
      case 'length_equals': t.length = cd.length; break;
      case 'string_format': {
        if (cd.format === 'url') {
          t.url = true;
          if (cd.hostname) t.urlHostname = cd.hostname.source;
          if (cd.protocol) t.urlProtocol = cd.protocol.source;
        } else if (cd.format === 'regex') {
          (t.regex = t.regex || []).push(cd.pattern.source);
          if (cd.pattern.flags) { (t.regexFlags = t.regexFlags || []); t.regexFlags[t.regex.length - 1] = cd.pattern.flags; }
        } else if (cd.format === 'starts_with') { t.startsWith = cd.prefix; }
        else if (cd.format === 'ends_with') { t.endsWith = cd.suffix; }
        else if (cd.format === 'includes') { t.includes = cd.includes; }
        else { (t.regex = t.regex || []).push(cd.pattern.source); t.format = cd.format; warnings.push(`${path}: string format ${cd.format} expressed as regex`); }
        break;
      }
      case 'custom': { addRefine(t, customSource(c)); const m = refineMessage(cd); if (m) (t.refineMessages = t.refineMessages || []).push(m); break; }
      default: warnings.push(`${path}: unhandled check ${cd.check}`); addRefine(t, 'check ' + cd.check);
    }
  }
  return t;
}

function describeInner(schema, path) {
  const def = schema._zod.def;
  switch (def.type) {
    case 'any': case 'unknown': return applyChecks({ t: 'any' }, def, path);
    case 'string': {
      const t = { t: 'string' };
      if (def.coerce) t.coerce = 'string';
      if (def.format) { // z.url(), z.email() ... : the schema itself is a string-format check
        if (def.format === 'url') { t.url = true; if (def.hostname) t.urlHostname = def.hostname.source; if (def.protocol) t.urlProtocol = def.protocol.source; }
        else if (def.format === 'regex') (t.regex = []).push(def.pattern.source);
        else if (def.format === 'starts_with') t.startsWith = def.prefix;
        else { t.format = def.format; if (def.pattern) t.regex = [def.pattern.source]; warnings.push(`${path}: top-level string format ${def.format}`); }
      }
      return applyChecks(t, def, path);
    }
    case 'number': { const t = { t: 'number' }; if (def.coerce) t.coerce = 'number'; return applyChecks(t, def, path); }
    case 'boolean': { const t = { t: 'boolean' }; if (def.coerce) t.coerce = 'boolean'; return applyChecks(t, def, path); }
    case 'null': return applyChecks({ t: 'null' }, def, path);
    case 'undefined': case 'void': return applyChecks({ t: 'undefined' }, def, path);
    case 'never': return { t: 'never' };
    case 'literal': return applyChecks({ t: 'literal', values: [...def.values] }, def, path);
    case 'enum': return applyChecks({ t: 'enum', values: [...schema._zod.values] }, def, path);
    case 'array': {
      const t = { t: 'array', items: describe(def.element, path + '[]') };
      return applyChecks(t, def, path);
    }
    case 'record': {
      let kt = def.keyType, partial = false;
      const kd = kt._zod.def;
      if (kd.type === 'union' && kd.options.length === 2 && kd.options[1]._zod.def.type === 'never' && !kd.discriminator) { partial = true; kt = kd.options[0]; }
      const t = { t: 'record', keys: describe(kt, path + '{key}'), values: describe(def.valueType, path + '{}') };
      if (partial) t.partial = true;
      else if (kt._zod.values) t.exhaustive = true; // zod: enum/literal-keyed non-partial record requires every key
      return applyChecks(t, def, path);
    }
    case 'object': {
      const fields = {};
      for (const k of Object.keys(def.shape)) fields[k] = describe(def.shape[k], path ? path + '.' + k : k);
      const t = { t: 'object', fields };
      if (!def.catchall) t.unknown = 'strip';
      else {
        const ct = def.catchall._zod.def.type;
        if (ct === 'unknown' || ct === 'any') t.unknown = 'passthrough';
        else if (ct === 'never') t.unknown = 'strict';
        else { t.unknown = 'catchall'; t.catchall = describe(def.catchall, path + '.*'); }
      }
      return applyChecks(t, def, path);
    }
    case 'union': {
      const options = def.options.map((o, i) => describe(o, path + '|' + i));
      const t = def.discriminator ? { t: 'discriminated', key: def.discriminator, options } : { t: 'union', options };
      if (def.discriminator && def.unionFallback) t.unionFallback = true;
      return applyChecks(t, def, path);
    }
    case 'optional': return applyChecks(Object.assign(describe(def.innerType, path), { optional: true }), def, path);
    case 'nullable': return applyChecks(Object.assign(describe(def.innerType, path), { nullable: true }), def, path);
    case 'default': case 'prefault': {
      const t = describe(def.innerType, path);
      const dv = jsonable(def.defaultValue);
      t[def.type] = 'value' in dv ? dv.value : dv; return applyChecks(t, def, path);
    }
    case 'catch': {
      const t = describe(def.innerType, path);
      if (t.catch) warnings.push(`${path}: nested catch`);
      t.catch = true;
      let cv; try { cv = def.catchValue({ value: undefined, issues: [], error: { issues: [] }, input: undefined }); } catch (e) { cv = { threw: String(e) }; }
      const j = jsonable(cv);
      if (cv !== null && typeof cv === 'object') { t.catchSentinel = true; if ('value' in j) t.catchValue = j.value; } // identity-compared sentinel object
      else if ('value' in j) t.catchValue = j.value; // absent => undefined (the key is dropped)
      return applyChecks(t, def, path);
    }
    case 'lazy': return describe(def.getter(), path);
    case 'readonly': return describe(def.innerType, path);
    case 'pipe': {
      const inT = def.in._zod.def.type, outT = def.out._zod.def.type;
      if (inT === 'transform') { // z.preprocess(fn, schema)
        const t = describe(def.out, path);
        for (const m of ['optional', 'nullable', 'default', 'catch']) if (m in t) warnings.push(`${path}: modifier ${m} inside a preprocess pipe is flattened (ambiguous)`);
        t.preprocess = src(def.in._zod.def.transform);
        const op = knownOp(def.in._zod.def.transform); if (op) t.preprocessOp = op; return applyChecks(t, def, path);
      }
      if (outT === 'transform') { // schema.transform(fn)
        const t = describe(def.in, path); t.transform = src(def.out._zod.def.transform);
        const op = knownOp(def.out._zod.def.transform); if (op) t.transformOp = op; return applyChecks(t, def, path);
      }
      const t = describe(def.in, path); t.pipeOut = describe(def.out, path + '>>'); return applyChecks(t, def, path);
    }
    case 'transform': { warnings.push(`${path}: bare transform`); return { t: 'any', transform: src(def.transform) }; }
    case 'custom': { const t = { t: 'any' }; addRefine(t, 'z.custom: ' + src(def.fn)); return applyChecks(t, def, path); }
    default:
      warnings.push(`${path}: unhandled zod type ${def.type}`);
      return { t: 'any', refine: 'unhandled zod type ' + def.type };
  }
}

const root = NM();
const out = describe(root, '');
const keys = Object.keys(out.fields);
const doc = {
  source: 'Claude Code 2.1.197 settings schema NM() (non-managed settings files), generated by gen_types.js from the real zod v4 schema objects',
  zod: 'zod v4 core 4.0.0 semantics',
  keyCount: keys.length,
  schema: out,
};
fs.writeFileSync(__dirname + '/claude-settings-types.json', JSON.stringify(doc) + '\n');
fs.writeFileSync(__dirname + '/claude-settings-types.pretty.json', JSON.stringify(doc, null, 1) + '\n');
console.error(`keys: ${keys.length}; bytes: ${JSON.stringify(doc).length}`);
for (const w of warnings) console.error('WARN', w);
