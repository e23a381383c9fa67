#!/usr/bin/env node
// gen_settings_types.js — walk Claude Code's real settings schema NM() (loaded from cc_settings_schema_extracted.js)
// and emit claude-settings-types.json, a compact type grammar latch can embed, and with --latch <file> latch's
// settings_types.json (the same grammar without function sources: "refine"/"refineMessages" become "refined":true).
//
//   2.1.197: zod v4 `_zod.def` objects (cc_settings_schema_extracted.js made by build_settings_schema.js);
//   2.1.332: Claude Code's own zod-like library (made by ../claude-2.1.332/extract_settings_schema.js): schema objects
//            with a `type` getter, `checks: [{rule:{kind,…}}]`, `shape`/`others`, `innerType`, `in`/`out`, …
//   CC_WORK=<dir> reads cc_settings_schema_extracted.js from <dir> and writes the two description files there
//   (default: this directory).
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
const fs = require('fs');
const WORK = process.env.CC_WORK || __dirname;
const EXTRACTED = require(WORK + '/cc_settings_schema_extracted.js');
const VERSION = (EXTRACTED && EXTRACTED.version) || '2.1.197';

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
    const code = fs.readFileSync(WORK + '/cc_settings_schema_extracted.js', 'utf8');
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
    // 2.1.332 (its names: ACe, zo = path.isAbsolute, Fs the catch sentinel, zv, Fo)
    '(n)=>{if(!Array.isArray(n))return n;let o=n.filter((a)=>ACe.includes(a));if(o.length<n.length)e?.(n.length-o.length);return o}':
      () => ({ op: 'filterArrayItemsIn', values: ['skills', 'agents', 'hooks', 'mcp'], note: 'ACe' }),
    '(e)=>typeof e==="string"&&zo(e)?e:void 0': () => ({ op: 'absolutePathElseUndefined', note: 'node path.isAbsolute (posix: starts with "/"); non-string or relative -> undefined' }),
    '(l)=>l.filter((c)=>c!==Fs)': () => ({ op: 'dropCatchSentinels', note: 'array items that failed and were replaced by the catch sentinel are removed' }),
    '(l)=>l': () => ({ op: 'identity' }),
    'function zv(e){return e==="manual"?"default":e}': () => ({ op: 'replaceValue', from: 'manual', to: 'default' }),
    '(i)=>i==="continue"?i:"block"': () => ({ op: 'replaceUnlessEqual', keep: 'continue', to: 'block', note: 'every value but "continue" becomes "block"' }),
    '(e)=>E(e)?e:void 0': () => ({ op: 'objectElseUndefined', note: 'a value that is not a plain object -> undefined' }),
    '(n)=>n===null?void 0:n': () => ({ op: 'nullToUndefined' }),
    '(o)=>o===null?void 0:o': () => ({ op: 'nullToUndefined' }),
    '(c)=>{if(typeof c!=="boolean")return c;return c?{}:{commit:"",pr:"",sessionUrl:!1}}':
      () => ({ op: 'booleanToObject', true: {}, false: { commit: '', pr: '', sessionUrl: false } }),
    ['function Fo(e){if(!je(e))return e;if(e.mode!=="deny")return e;let n={...e};if("extract"in n&&typeof n.extract!=="string")delete n.extract;' +
      'if("onExtractNoMatch"in n&&n.onExtractNoMatch!=="warn"&&n.onExtractNoMatch!=="deny"&&n.onExtractNoMatch!=="error")delete n.onExtractNoMatch;' +
      'if("decode"in n&&n.decode!=="jwt")delete n.decode;' +
      'if("maskClaims"in n&&!(Array.isArray(n.maskClaims)&&n.maskClaims.every((o)=>typeof o==="string")))delete n.maskClaims;' +
      'if("maskDuplicates"in n&&typeof n.maskDuplicates!=="boolean")delete n.maskDuplicates;' +
      'if("injectHosts"in n&&!(Array.isArray(n.injectHosts)&&n.injectHosts.every((o)=>typeof o==="string")))delete n.injectHosts;return n}']: () => ({
      op: 'dropKeysNotFitting', when: { key: 'mode', equals: 'deny' }, keys: {
        extract: { t: 'string' }, onExtractNoMatch: { t: 'enum', values: ['warn', 'deny', 'error'] }, decode: { t: 'literal', values: ['jwt'] },
        maskClaims: { t: 'array', items: { t: 'string' } }, maskDuplicates: { t: 'boolean' }, injectHosts: { t: 'array', items: { t: 'string' } },
      }, note: 'an object whose `when.key` is `when.equals` loses each of these keys whose value does not fit its type' }),
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

// ---- 2.1.332: Claude Code's own schema library ---------------------------------------------------------------------
// Its semantics differ from zod v4 where noted in the grammar: string lengths count code points ("lengthIn":
// "codePoints"), a transform's input may be absent (a preprocess pipe runs its function on a missing key).
function ruleSource(rule) {
  const f = rule.kind === 'refine' ? rule.accepts : rule.inspect;
  return rule.kind + ': ' + src(f);
}
function applyRules(t, s, path) {
  for (const c of s.checks || []) {
    const r = c.rule;
    switch (r.kind) {
      case 'length':
        if (r.exact) t.length = r.minimum;
        else {
          if (r.minimum !== -Infinity) t.min = Math.max(t.min ?? -Infinity, r.minimum);
          if (r.maximum !== Infinity) t.max = Math.min(t.max ?? Infinity, r.maximum);
        }
        if (t.t === 'string') t.lengthIn = 'codePoints';
        break;
      case 'above': if (r.inclusive) t.min = r.bound; else t.exclusiveMin = r.bound; break;
      case 'below': if (r.inclusive) t.max = r.bound; else t.exclusiveMax = r.bound; break;
      case 'integer':
        t.int = true;
        if (r.format !== 'safeint') { t.format = r.format; t.min = Math.max(t.min ?? -Infinity, r.minimum); t.max = Math.min(t.max ?? Infinity, r.maximum); }
        break;
      case 'format':
        if (r.format === 'regex') {
          (t.regex = t.regex || []).push(r.pattern.source);
          if (r.pattern.flags) { t.regexFlags = t.regexFlags || []; t.regexFlags[t.regex.length - 1] = r.pattern.flags; }
        } else if (r.format === 'starts_with') t.startsWith = r.part;
        else if (r.format === 'ends_with') t.endsWith = r.part;
        else if (r.format === 'includes') t.includes = r.part;
        else { (t.regex = t.regex || []).push(r.pattern.source); t.format = r.format; warnings.push(`${path}: string format ${r.format} expressed as regex`); }
        break;
      case 'url':
        t.url = true;
        if (r.protocol) t.urlProtocol = r.protocol.source;
        break;
      case 'rewrite': addRefine(t, 'rewrite: ' + src(r.apply)); warnings.push(`${path}: rewrite ${src(r.apply)}`); break;
      case 'refine': case 'superRefine': case 'custom': {
        addRefine(t, ruleSource(r));
        const m = typeof c.error === 'function' ? (() => { try { const x = c.error({ code: 'custom', input: '<input>', path: [] }); return typeof x === 'string' ? x : x && x.message; } catch { return undefined; } })() : undefined;
        if (m) (t.refineMessages = t.refineMessages || []).push(m);
        break;
      }
      default: warnings.push(`${path}: unhandled rule ${r.kind}`); addRefine(t, 'rule ' + r.kind);
    }
  }
  return t;
}
const ccStack = new Set();
function describeCC(s, path) {
  if (!s || typeof s.safeParse !== 'function') throw new Error('not a schema at ' + path);
  if (ccStack.has(s)) throw new Error('recursive schema at ' + path);
  ccStack.add(s);
  try { return applyRules(describeCCInner(s, path), s, path); } finally { ccStack.delete(s); }
}
const coerced = (s, kind) => /\bme\(\s*String\s*,|me\(String,/.test(String(s.read)) ? 'string' : /me\(Number,/.test(String(s.read)) ? 'number' : /Boolean\(e\)/.test(String(s.read)) && kind === 'boolean' ? 'boolean' : undefined;
function describeCCInner(s, path) {
  switch (s.type) {
    case 'any': case 'unknown': case 'custom': return { t: 'any' };
    case 'string': { const t = { t: 'string' }; const c = coerced(s, 'string'); if (c) t.coerce = c; return t; }
    case 'template_literal': return { t: 'string', startsWith: s.prefix };
    case 'number': { const t = { t: 'number' }; const c = coerced(s, 'number'); if (c) t.coerce = c; return t; }
    case 'boolean': { const t = { t: 'boolean' }; const c = coerced(s, 'boolean'); if (c) t.coerce = c; return t; }
    case 'null': return { t: 'null' };
    case 'undefined': return { t: 'undefined' };
    case 'never': return { t: 'never' };
    case 'literal': return { t: 'literal', values: [...s.values] };
    case 'enum': return { t: 'enum', values: [...s.options] };
    case 'array': return { t: 'array', items: describeCC(s.element, path + '[]') };
    case 'record': {
      const t = { t: 'record', keys: describeCC(s.keyType, path + '{key}'), values: describeCC(s.valueType, path + '{}') };
      if (s.isPartial) t.partial = true;
      else if (s.keyType.choices !== undefined) t.exhaustive = true; // every key of an enum/literal key type is required
      return t;
    }
    case 'object': {
      const fields = {};
      for (const k of Object.keys(s.shape)) fields[k] = describeCC(s.shape[k], path ? path + '.' + k : k);
      const t = { t: 'object', fields };
      if (!s.others) t.unknown = 'strip';
      else if (s.others.type === 'unknown' || s.others.type === 'any') t.unknown = 'passthrough';
      else if (s.others.type === 'never') t.unknown = 'strict';
      else { t.unknown = 'catchall'; t.catchall = describeCC(s.others, path + '.*'); }
      return t;
    }
    case 'union': {
      const options = s.options.map((o, i) => describeCC(o, path + '|' + i));
      return s.discriminator !== undefined ? { t: 'discriminated', key: s.discriminator, options } : { t: 'union', options };
    }
    case 'optional': return Object.assign(describeCC(s.innerType, path), { optional: true });
    case 'nullable': return Object.assign(describeCC(s.innerType, path), { nullable: true });
    case 'default': case 'prefault': {
      const t = describeCC(s.innerType, path);
      const dv = jsonable(s.defaultValue);
      t[s.type] = 'value' in dv ? dv.value : dv; return t;
    }
    case 'catch': {
      const t = describeCC(s.innerType, path);
      if (t.catch) warnings.push(`${path}: nested catch`);
      t.catch = true;
      let cv;
      if (typeof s.fallback !== 'function') cv = s.fallback;
      else { try { cv = s.fallback({ value: undefined, issues: [], input: undefined, error: { issues: [] } }); } catch (e) { cv = { threw: String(e) }; } }
      const j = jsonable(cv);
      if (cv !== null && typeof cv === 'object') { t.catchSentinel = true; if ('value' in j) t.catchValue = j.value; }
      else if ('value' in j) t.catchValue = j.value;
      return t;
    }
    case 'lazy': { // Q6(); 2.1.332's deferredOptional() is a lazy that takes a missing key itself
      const t = describeCC(s.innerType, path);
      if (s.optin === 'optional' && s.optout === 'optional' && !s.innerType.optin) t.optional = true;
      return t;
    }
    case 'readonly': return describeCC(s.innerType, path);
    case 'pipe': {
      if (s.in.type === 'transform' && !(s.in.checks || []).length) { // Nc(fn, schema): a preprocess
        const t = describeCC(s.out, path);
        for (const m of ['optional', 'nullable', 'default', 'catch']) if (m in t) warnings.push(`${path}: modifier ${m} inside a preprocess pipe is flattened (ambiguous)`);
        t.preprocess = src(s.in.change);
        const op = knownOp(s.in.change); if (op) t.preprocessOp = op;
        return t;
      }
      if (s.out.type === 'transform' && !(s.out.checks || []).length) { // schema.transform(fn)
        const t = describeCC(s.in, path); t.transform = src(s.out.change);
        const op = knownOp(s.out.change); if (op) t.transformOp = op;
        return t;
      }
      const t = describeCC(s.in, path); t.pipeOut = describeCC(s.out, path + '>>'); return t;
    }
    case 'transform': warnings.push(`${path}: bare transform`); return { t: 'any', transform: src(s.change) };
    case 'intersection': return { t: 'intersection', options: [describeCC(s.left, path + '&0'), describeCC(s.right, path + '&1')] };
    case 'tuple': { const t = { t: 'tuple', items: s.items.map((x, i) => describeCC(x, path + '[' + i + ']')) }; if (s.restType) t.rest = describeCC(s.restType, path + '[...]'); return t; }
    case 'nonoptional': return describeCC(s.innerType, path);
    default:
      warnings.push(`${path}: unhandled schema type ${s.type}`);
      return { t: 'any', refine: 'unhandled schema type ' + s.type };
  }
}

// latch's copy: function sources dropped, refinements marked
function forLatch(t) {
  if (Array.isArray(t)) return t.map(forLatch);
  if (!t || typeof t !== 'object') return t;
  const o = {};
  for (const [k, v] of Object.entries(t)) {
    if (k === 'refine' || k === 'refineMessages') { o.refined = true; continue; }
    if (k === 'preprocess' || k === 'transform') continue;
    o[k] = k === 'fields' ? Object.fromEntries(Object.entries(v).map(([f, x]) => [f, forLatch(x)])) : forLatch(v);
  }
  return o;
}

const root = NM();
const out = root._zod ? describe(root, '') : describeCC(root, '');
const keys = Object.keys(out.fields);
const doc = {
  source: `Claude Code ${VERSION} settings schema NM() (non-managed settings files), generated by gen_settings_types.js from the real schema objects`,
  zod: root._zod ? 'zod v4 core 4.0.0 semantics' : "Claude Code's own zod-like schema library (chunk-j7rrrdnv.js): zod v4's interface; string lengths in code points",
  keyCount: keys.length,
  schema: out,
};
fs.writeFileSync(WORK + '/claude-settings-types.json', JSON.stringify(doc) + '\n');
fs.writeFileSync(WORK + '/claude-settings-types.pretty.json', JSON.stringify(doc, null, 1) + '\n');
const latchAt = process.argv.indexOf('--latch');
if (latchAt > 0) {
  const about = `Claude Code ${VERSION} settings-file schema (NM(), non-managed files), generated by recordings/claude/gen_settings_types.js from ${root._zod ? 'the zod schema objects' : 'its schema objects'}; refinements are marked "refined" and not checked.`;
  const latch = { about, keyCount: keys.length, schema: forLatch(out) };
  if (typeof globalThis.ccManagedOnlyKeysList !== 'undefined') // 2.1.332: the lists its cleaning works with
    latch.cleaning = {
      about: 'What Claude Code removes or renames before it checks a settings file that is not managed policy (TA): keys only managed settings may set (so), aliases renamed (uwe), keys whose null is removed (Fr), and what its search for PreToolUse/PermissionRequest hooks outside `hooks` uses (pe, Prt, bwe, Tr, N4s), and the marketplace source types whose wrong entries are kept, failing the file (Wr).',
      managedOnly: [...globalThis.ccManagedOnlyKeysList],
      aliases: globalThis.ccAliases.map(({ alias, canonical }) => [alias, canonical]),
      nullDropped: [...globalThis.ccNullDroppedKeys()],
      guardEvents: [...globalThis.ccGuardEvents],
      unscannedKeys: [...globalThis.ccUnscannedKeys],
      marketplaceSources: [...globalThis.ccKnownMarketplaceSources],
      pluginSources: [...globalThis.ccKnownPluginSources],
    };
  fs.writeFileSync(process.argv[latchAt + 1], JSON.stringify(latch) + '\n');
}
console.error(`keys: ${keys.length}; bytes: ${JSON.stringify(doc).length}`);
for (const w of warnings) console.error('WARN', w);
