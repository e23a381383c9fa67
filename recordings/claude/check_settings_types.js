#!/usr/bin/env node
// check_settings_types.js — a small interpreter for claude-settings-types.json (reference model for latch's Rust checker).
//
//   node check_settings_types.js '<settings json>'     check one (already-cleaned) settings value, print ACCEPT/REJECT + output
//   node check_settings_types.js --compare [-v]        compare against the real schema NM().safeParse (after the cleaning,
//                                                      uye; 2.1.332: ../claude-2.1.332/extract_settings_schema.js's shim)
//   CC_WORK=<dir>: where cc_settings_schema_extracted.js and claude-settings-types.json are (default: this directory).
//
// Semantics mirror zod v4 (core 4.0.0) for every feature present in the description (2.1.332's own library: the same,
// but "lengthIn":"codePoints" counts a string's length in code points); "refine" is ignored;
// "preprocess"/"transform" function bodies cannot be run from data: a known one is run from its "op", an unknown one
// makes the result unsure (accepted).
'use strict';
const fs = require('fs');
const WORK = process.env.CC_WORK || __dirname;
const DOC = JSON.parse(fs.readFileSync(WORK + '/claude-settings-types.json', 'utf8'));

const FAIL = { ok: false };
const OPAQUE = Symbol('opaque'); // output value produced by a transform we cannot run
const SENTINEL = Symbol('catch-sentinel');
const path = require('path');
function applyOp(op, v) {
  switch (op.op) {
    case 'identity': return v;
    case 'filterArrayItemsIn': return Array.isArray(v) ? v.filter((x) => op.values.includes(x)) : v;
    case 'replaceValue': return v === op.from ? op.to : v;
    case 'absolutePathElseUndefined': return typeof v === 'string' && path.posix.isAbsolute(v) ? v : undefined;
    case 'dropCatchSentinels': return v.filter((x) => x !== SENTINEL);
    case 'replaceUnlessEqual': return v === op.keep ? v : op.to;
    case 'objectElseUndefined': return isObj(v) ? v : undefined;
    case 'nullToUndefined': return v === null ? undefined : v;
    case 'booleanToObject': return typeof v === 'boolean' ? structuredClone(v ? op.true : op.false) : v;
    case 'dropKeysNotFitting': {
      if (!isObj(v) || v[op.when.key] !== op.when.equals) return v;
      const o = { ...v };
      for (const [k, t] of Object.entries(op.keys)) if (has(o, k) && !check(t, o[k]).ok) delete o[k];
      return o;
    }
  }
  return OPAQUE;
}
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// JS String(v) for JSON values (what z.coerce.string does). Returns undefined if JS would throw.
function jsString(v) {
  try { return String(v); } catch { return undefined; }
}

function checkString(t, v) {
  if (typeof v !== 'string') return false;
  const len = t.lengthIn === 'codePoints' ? [...v].length : v.length; // zod: UTF-16 code units; 2.1.332: code points
  if (t.min !== undefined && len < t.min) return false;
  if (t.max !== undefined && len > t.max) return false;
  if (t.length !== undefined && len !== t.length) return false;
  if (t.regex) for (let i = 0; i < t.regex.length; i++) if (!new RegExp(t.regex[i], (t.regexFlags && t.regexFlags[i]) || '').test(v)) return false;
  if (t.startsWith !== undefined && !v.startsWith(t.startsWith)) return false;
  if (t.endsWith !== undefined && !v.endsWith(t.endsWith)) return false;
  if (t.includes !== undefined && !v.includes(t.includes)) return false;
  if (t.url) {
    let u; try { u = new URL(v); } catch { return false; }              // WHATWG URL parser
    if (t.urlHostname && !new RegExp(t.urlHostname).test(u.hostname)) return false;
    if (t.urlProtocol && !new RegExp(t.urlProtocol).test(u.protocol.replace(/:$/, ''))) return false;
  }
  return true;
}
function urlNormalise(t, v) { // zod's url check rewrites the value to URL.href (without an added trailing slash)
  if (!t.url) return v;
  if (DOC.zod && !DOC.zod.startsWith('zod')) return v.trim().replace(/[\t\n\r]/g, ''); // 2.1.332: the trimmed text
  const href = new URL(v).href;
  return !v.endsWith('/') && href.endsWith('/') ? href.slice(0, -1) : href;
}
function checkNumber(t, v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  if (t.int && (!Number.isInteger(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER)) return false;
  if (t.min !== undefined && !(v >= t.min)) return false;
  if (t.max !== undefined && !(v <= t.max)) return false;
  if (t.exclusiveMin !== undefined && !(v > t.exclusiveMin)) return false;
  if (t.exclusiveMax !== undefined && !(v < t.exclusiveMax)) return false;
  return true;
}
function literalValues(t) { // values a discriminator field can take (zod propValues)
  let vals = null;
  if (t.t === 'literal' || t.t === 'enum') vals = [...t.values];
  if (!vals) return null;
  if (t.optional) vals.push(undefined);
  if (t.nullable) vals.push(null);
  return vals;
}

// check(t, v) -> {ok:true, value} | {ok:false}.  v === undefined means "absent".
function check(t, v) {
  // wrappers, outermost effect first. catch swallows every failure (so its position among the wrappers never changes acceptance)
  if (t.catch) {
    const r = checkCore(t, v);
    if (r.ok) return r;
    return { ok: true, value: t.catchSentinel ? SENTINEL : t.catchValue };
  }
  return checkCore(t, v);
}
function checkCore(t, v) {
  if (v === undefined && 'default' in t) return { ok: true, value: t.default };
  if (v === undefined && t.optional) return { ok: true, value: undefined };
  if (v === null && t.nullable) return { ok: true, value: null };
  if (t.preprocess) {                        // z.preprocess(fn, TYPE): fn runs first, TYPE checks its result
    if (!t.preprocessOp) return { ok: true, value: OPAQUE, unsure: true };
    v = applyOp(t.preprocessOp, v);           // modifiers (optional/nullable/default/catch) sit OUTSIDE the pipe
  }
  const r = checkBase(t, v);
  if (r.ok && t.transform) return { ok: true, value: t.transformOp ? applyOp(t.transformOp, r.value) : OPAQUE };
  return r;
}

function checkBase(t, v) {
  switch (t.t) {
    case 'any': return { ok: true, value: v };
    case 'never': return FAIL;
    case 'string': {
      if (t.coerce === 'string') { v = jsString(v); }
      return checkString(t, v) ? { ok: true, value: urlNormalise(t, v) } : FAIL;
    }
    case 'number': return checkNumber(t, v) ? { ok: true, value: v } : FAIL;
    case 'boolean': return typeof v === 'boolean' ? { ok: true, value: v } : FAIL;
    case 'null': return v === null ? { ok: true, value: v } : FAIL;
    case 'undefined': return v === undefined ? { ok: true, value: v } : FAIL;
    case 'literal': case 'enum': return t.values.some((x) => x === v) ? { ok: true, value: v } : FAIL;
    case 'array': {
      if (!Array.isArray(v)) return FAIL;
      const out = [];
      let ok = true;
      for (const item of v) { const r = check(t.items, item); if (!r.ok) ok = false; else out.push(r.value); }
      // length checks run only when the elements parsed (zod: checks skipped once aborted; result is a failure either way)
      if (!ok) return FAIL;
      if (t.min !== undefined && v.length < t.min) return FAIL;
      if (t.max !== undefined && v.length > t.max) return FAIL;
      if (t.length !== undefined && v.length !== t.length) return FAIL;
      return { ok: true, value: out };
    }
    case 'record': {
      if (!isObj(v)) return FAIL; // JSON objects are plain objects
      const out = {};
      let ok = true;
      if (t.exhaustive) { // enum/literal-keyed z.record: every key required, no others allowed
        for (const k of t.keys.values) { const r = check(t.values, v[k]); if (!r.ok) ok = false; else out[k] = r.value; }
        for (const k of Object.keys(v)) if (!t.keys.values.includes(k)) ok = false;
      } else {
        for (const k of Object.keys(v)) {
          if (k === '__proto__') continue;            // zod skips this key in records
          const kr = check(t.keys, k);
          if (!kr.ok) { ok = false; continue; }
          const r = check(t.values, v[k]);
          if (!r.ok) ok = false; else out[kr.value] = r.value;
        }
      }
      return ok ? { ok: true, value: out } : FAIL;
    }
    case 'object': {
      if (!isObj(v)) return FAIL;
      const out = {};
      let ok = true;
      for (const [k, ft] of Object.entries(t.fields)) {
        const present = has(v, k);
        const r = check(ft, present ? v[k] : undefined);
        if (!r.ok) { ok = false; continue; }
        if (r.value !== undefined || present) out[k] = r.value;
      }
      for (const k of Object.keys(v)) {
        if (has(t.fields, k)) continue;
        if (t.unknown === 'strip') continue;
        if (t.unknown === 'passthrough') { out[k] = v[k]; continue; }
        if (t.unknown === 'strict') { ok = false; continue; }
        const r = check(t.catchall, v[k]); if (!r.ok) ok = false; else out[k] = r.value;
      }
      return ok ? { ok: true, value: out } : FAIL;
    }
    case 'union': {
      for (const o of t.options) { const r = check(o, v); if (r.ok) return r; }
      return FAIL;
    }
    case 'discriminated': {
      if (!isObj(v)) return FAIL;
      const d = v[t.key];
      for (const o of t.options) {
        const vals = literalValues(o.fields[t.key]);
        if (vals && vals.some((x) => x === d)) return check(o, v);
      }
      if (t.unionFallback) { for (const o of t.options) { const r = check(o, v); if (r.ok) return r; } }
      return FAIL;
    }
    default: throw new Error('unknown type ' + t.t);
  }
}

function checkSettings(value) { return check(DOC.schema, value); }
module.exports = { check, checkSettings, DOC, OPAQUE, SENTINEL };

// ---------------------------------------------------------------------------------------------------------------
if (require.main === module && process.argv[2] !== '--compare') {
  const v = JSON.parse(process.argv[2]);
  const r = checkSettings(v);
  console.log(r.ok ? 'ACCEPT' : 'REJECT', r.ok ? JSON.stringify(r.value, (k, x) => (x === OPAQUE ? '<transformed>' : x)) : '');
}

if (require.main === module && process.argv[2] === '--compare') {
  require(WORK + '/cc_settings_schema_extracted.js');
  const verbose = process.argv.includes('-v');
  const cases = []; // [label, text]
  // (a) the inputs of the research's REPORT.md section 2 and of its run_settings.js (files not kept; these are their
  // JSON inputs, as the 2.1.197 settings-cases.jsonl recorded them, plus the two texts that are not JSON)
  const REPORTED = [
    '{"model":5}', '{"model":null}', '{"permissions":{"allow":"Bash"}}', '{"permissions":{"allow":[1,"Bash"]}}', '{"env":[]}', '{"env":{"N":1}}',
    '{"env":{"N":null}}', '{"env":{"O":{"a":1}}}', '{"statusLine":"x"}', '{"cleanupPeriodDays":"5"}', '{"includeCoAuthoredBy":"yes"}',
    '{"enabledPlugins":[]}', '{"unknownKey":5}', '{"apiKeyHelper":5}', '{"hooks":{}}', '{"hooks":[]}', '{"hooks":null}', '{"hooks":{"Bogus":[]}}',
    '{"hooks":{"Bogus":[],"Stop":[]}}', '{"hooks":{"PreToolUse":{}}}', '{"hooks":{"PreToolUse":[null]}}',
    '{"hooks":{"PreToolUse":[{"matcher":"Bash"}]}}', '{"hooks":{"PreToolUse":[{"hooks":[]}]}}', '{"hooks":{"PreToolUse":[{"matcher":5,"hooks":[]}]}}',
    '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command"}]}]}}', '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x","timeout":"5"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","timeout":0}]}]}}',
    '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x","extra":1}]}]}}',
    '{"hooks":{"PreToolUse":[{"hooks":[{"type":"bogus","command":"x"}]}]}}',
    '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"c","shell":"zsh"}]}]}}',
    '{"hooks":{"PreToolUse":[{"hooks":[{"type":"http","url":"not a url"}]}]}}', '{"disableAllHooks":"true"}', '{"permissions":{"allow":["Bash("]}}',
    '{"permissions":{"allow":["mcp__*"]}}', '{"permissions":{"allow":["Bash(npm *)"],"deny":[null,"Read(.env)"],"ask":[{}]}}',
    '{"permissions":{"allow":null}}', '{"permissions":null}', '{"permissions":{"defaultMode":"yolo"}}', '{"permissions":{"extra":1}}',
    '{"env":{"N":true}}', '{"env":{"N":[1,2]}}', '{"env":null}', '{"statusLine":{"type":"command","command":"x"}}', '{"statusLine":{"type":"command"}}',
    '{"statusLine":{"type":"command","command":"x","extra":1}}', '{"statusLine":{"type":"command","command":"x","refreshInterval":0}}',
    '{"cleanupPeriodDays":0}', '{"cleanupPeriodDays":1.5}', '{"enabledPlugins":{"a@b":true}}', '{"enabledPlugins":{"a@b":"yes"}}', '{"theme":"nope"}',
    '{"effortLevel":5}', '{"sandbox":{"bogus":1}}', '{"sandbox":{"enabled":"true"}}', '{"allowedMcpServers":"x"}',
    '{"allowedMcpServers":[{"serverName":"bad name"},{"serverName":"ok"}]}', '{"fallbackModel":"x"}', '{"apiKeyHelper":"x","model":5,"env":[]}',
    '{"hooks":{"Stop":[{"matcher":"x","hooks":[{"type":"prompt","prompt":"p"}]}]}}', '{"disableAllHooks":1}',
    '{"permissions":{"allow":["Bash"],"defaultMode":"yolo"}}', '{"permissions":[]}', '{"permissions":{"deny":"x"}}',
    '{"permissions":{"additionalDirectories":"x"}}', '{"statusLine":{"type":"command","command":"x","padding":"1"}}', '{"model":""}', '{}',
    '{"outputStyle":5}', '{"__proto__":{"model":5}}',
    '', '{bad json',
  ];
  for (const text of REPORTED) cases.push(['report', text]);
  const nReport = cases.length;
  // (a2) hand-written edge cases (refinements, coercion, key handling, numbers, urls)
  const EDGE = [
    '{"sandbox":{"network":{"allowMachLookup":["com.example.*"]}}}', '{"sandbox":{"network":{"allowMachLookup":["a*b"]}}}',
    '{"deniedMcpServers":[{"serverName":" x"}]}', '{"deniedMcpServers":[{"serverName":"x","serverUrl":"u"}]}', '{"allowedMcpServers":[{}]}',
    '{"permissions":{"deny":["Bash("]}}', '{"permissions":{"ask":["bash"]}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"other","plugins":[]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"npm","package":"../x"}}}}', '{"extraKnownMarketplaces":{"m":{"source":{"source":"npm","package":"@a/b"}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"github","repo":"a/b"}}}}',
    '{"env":{"A":[1,[2,3],null,{}]}}', '{"env":{"A":{"toString":1}}}', '{"env":{"__proto__":5,"B":1}}', '{"modelOverrides":{"__proto__":5}}',
    '{"cleanupPeriodDays":9007199254740991}', '{"cleanupPeriodDays":9007199254740992}', '{"cleanupPeriodDays":1e400}', '{"cleanupPeriodDays":-0}',
    '{"skillListingBudgetFraction":0}', '{"skillListingBudgetFraction":1}', '{"skillListingBudgetFraction":1.0000001}',
    '{"forceLoginGatewayUrl":"http://a"}', '{"forceLoginGatewayUrl":"nope"}', '{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"HTTP://EXAMPLE.com"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"x:y"}]}]}}', '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","timeout":1e-9}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","rewakeMessage":""}]}]}}', '{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"agent","prompt":"p"}]}]}}', '{"hooks":{"Stop":[{"hooks":[{"command":"c"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","async":true,"asyncRewake":"x"}]}]}}',
    '{"theme":"custom:x"}', '{"theme":"custom"}', '{"footerLinksRegexes":[{"type":"regex","pattern":"a","url":"u"},5,{"type":"invalid-entry-stripped"}]}',
    '{"strictPluginOnlyCustomization":["hooks","bogus"]}', '{"strictPluginOnlyCustomization":"x"}',
    '{"sandbox":{"bwrapPath":"rel/bwrap"}}', '{"sandbox":{"bwrapPath":"/usr/bin/bwrap"}}', '{"sandbox":{"bwrapPath":5}}',
    '{"quietHours":{"start":"24:00"}}', '{"quietHours":{"start":"7:05"}}', '{"quietHours":{"start":"07:5"}}',
    '{"model":"\ud83d\ude00"}', '{"enabledPlugins":{"a":null}}', '{"enabledPlugins":{"a":["x"]}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"github","repo":"a/b"}}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"github","repo":5}}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"npm","package":"@a/b"}}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"url","url":"https://x/y.git"}}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"bogus"}}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"github","repo":"a/b"},"version":5}]}}}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"m","plugins":[{"name":"p","source":"."}]}}}}',
    '{"strictKnownMarketplaces":[{"source":"settings","name":"m","plugins":[{"name":"p","source":{"source":"git-subdir","url":"u","path":"p"}}]}]}',
    '{"strictKnownMarketplaces":[{"source":"hostPattern","hostPattern":"^x$"}]}', '{"strictKnownMarketplaces":[{"source":"pathPattern","pathPattern":5}]}',
    // 2.1.332: its cleaning before the check (aliases, managed-only keys, repairs), the hooks a file may not lose, lengths
    '{"additionalMarketplaces":{"m":{"source":{"source":"github","repo":"a/b"}}}}', '{"additionalMarketplaces":5}', '{"additionalMarketplaces":null}',
    '{"allowedMarketplaces":[5]}', '{"allowedMarketplaces":5,"strictKnownMarketplaces":[]}', '{"allowedMarketplaces":[],"strictKnownMarketplaces":5}',
    '{"managedMcpServers":5}', '{"isolation":"x"}', '{"deniedModels":5}', '{"availableModelsMatch":5}', '{"attributionProjectPolicy":5}',
    '{"strictKnownMarketplaces":null}', '{"blockedMarketplaces":null}', '{"strictPluginOnlyCustomization":null}', '{"allowManagedHooksOnly":null}',
    '{"enabledMcpjsonServers":"abc"}', '{"enabledMcpjsonServers":"a b"}', '{"disabledMcpjsonServers":"x"}', '{"disabledMcpjsonServers":5}',
    '{"modelPicker":5}', '{"modelPicker":{"options":[5]}}', '{"modelPicker":{"options":[],"replaceBuiltInOptions":"x"}}', '{"modelPicker":{}}',
    '{"modelPricing":5}', '{"modelPricing":{"multiplier":50}}', '{"modelPricing":{"overrides":5}}', '{"modelPricing":{"overrides":{"m":5}}}',
    '{"crossSessionInbound":5}', '{"crossSessionInbound":"bogus"}', '{"remoteControl":5}', '{"remoteControl":{"shareHostProfile":"bogus"}}',
    '{"remoteControl":{"x":1}}', '{"teammateMode":5}', '{"teammateMode":"bogus"}', '{"permissions":{"defaultMode":"manual"}}',
    '{"extraKnownMarketplaces":5}', '{"extraKnownMarketplaces":{"m":{"source":{"source":"bogus"}}}}', '{"extraKnownMarketplaces":{"m":5}}',
    '{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"other","plugins":[]}},"n":{"source":{"source":"github","repo":"a/b"}}}}',
    '{"attribution":true}', '{"attribution":false}', '{"attribution":{"commit":5}}', '{"attribution":"x"}',
    '{"hooks":{"PreToolUse":"x"}}', '{"hooks":{"Stop":{}}}', '{"hooks":{"Stop":null}}', '{"hooks":{"PreToolUse":null}}', '{"hooks":{"PermissionRequest":5}}',
    '{"hooks":{"Bogus":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}', '{"hooks":[{"matcher":"Bash","hooks":[]}]}', '{"hooks":"x"}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"bogus"}]}]}}', '{"hooks":{"PreToolUse":[{"hooks":[{"type":"bogus"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"s","tool":"t","onFailure":5}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","onFailure":"x"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://x","onFailure":"block"}]}]}}',
    '{"hooks":{"PreModelSwitch":[{"hooks":[{"type":"command","command":"c"}]}]}}', '{"hooks":{"PreSkillShellCommand":[{"hooks":[{"type":"bogus"}]}]}}',
    '{"hooks":{"DirectoryAdded":[{"matcher":5,"hooks":[]}]}}', '{"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}]}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","rewakeMessage":"\ud83d\ude00"}]}]}}',
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"c","timeout":2147483648}]}]}}',
    '{"deniedMcpServers":[{"serverName":"\ud83d\ude00"}]}',
  ];
  for (const e of EDGE) cases.push(['edge', e]);
  const nFixed = cases.length;

  // (b) generated inputs
  const FIELDS = DOC.schema.fields;
  const SAMPLE_STRINGS = ['x', 'https://example.com', '22:00', 'a'.repeat(40), 'owner/repo', './x', 'custom:x', '@scope/pkg', 'pkg', 'ok_name'];
  function exampleString(t) {
    const cands = [];
    for (const s of SAMPLE_STRINGS) cands.push(t.startsWith !== undefined ? t.startsWith + s.replace(/^\.\//, '') : s);
    if (t.length) cands.unshift('a'.repeat(t.length));
    for (const c of cands) if (checkString(t, c)) return c;
    return 'x';
  }
  function example(t, depth = 0) { // a minimal value the description accepts (required fields only)
    switch (t.t) {
      case 'any': return 'anything';
      case 'string': return exampleString(t);
      case 'number': { let n = 1; if (t.min !== undefined) n = Math.max(n, t.min); if (t.exclusiveMin !== undefined && n <= t.exclusiveMin) n = t.exclusiveMin + 1; if (t.max !== undefined && n > t.max) n = t.max; if (t.exclusiveMax !== undefined && n >= t.exclusiveMax) n = t.int ? t.exclusiveMax - 1 : t.exclusiveMax / 2; return n; }
      case 'boolean': return true;
      case 'null': return null;
      case 'undefined': return undefined;
      case 'never': return undefined;
      case 'literal': case 'enum': return t.values[0];
      case 'array': { const n = Math.max(t.min || 0, t.length || 0, 1); return Array.from({ length: n }, () => example(t.items, depth + 1)); }
      case 'record': {
        if (t.exhaustive) return Object.fromEntries(t.keys.values.map((k) => [k, example(t.values, depth + 1)]));
        const k = t.keys.t === 'enum' || t.keys.t === 'literal' ? t.keys.values[0] : exampleString(t.keys);
        return { [k]: example(t.values, depth + 1) };
      }
      case 'object': {
        const o = {};
        for (const [k, ft] of Object.entries(t.fields)) if (!ft.optional && !ft.catch && !('default' in ft)) o[k] = example(ft, depth + 1);
        if (t.refine && !Object.keys(o).length) { const [k, ft] = Object.entries(t.fields)[0]; o[k] = example(ft, depth + 1); } // e.g. "exactly one of" refinements
        return o;
      }
      case 'union': case 'discriminated': return example(t.options[0], depth + 1);
    }
    return null;
  }
  function fullExample(t) { // also fill optional fields (one level deeper coverage)
    if (t.t !== 'object') return example(t);
    const o = example(t);
    for (const [k, ft] of Object.entries(t.fields)) if (!(k in o)) o[k] = example(ft, 1);
    return o;
  }
  const wrongPrim = (t) => (t.t === 'string' ? 5 : t.t === 'number' ? '5' : t.t === 'boolean' ? 'true' : 'x');
  function mutations(t, v, depth) { // [description, value] pairs replacing nested parts of v with bad values
    const out = [];
    if (depth > 3) return out;
    if (t.t === 'object' && isObj(v)) {
      for (const [k, ft] of Object.entries(t.fields)) {
        for (const bad of [wrongPrim(ft), null, [], {}, 1.5, -1, '']) out.push([`.${k}=${JSON.stringify(bad)}`, { ...v, [k]: bad }]);
        out.push([`.${k} removed`, (() => { const c = { ...v }; delete c[k]; return c; })()]);
        const ev = has(v, k) ? v[k] : example(ft, depth + 1);
        for (const [d, mv] of mutations(ft, ev, depth + 1)) out.push([`.${k}${d}`, { ...v, [k]: mv }]);
      }
      out.push(['.unknownExtra=1', { ...v, unknownExtra: 1 }]);
    } else if (t.t === 'array' && Array.isArray(v) && v.length) {
      for (const bad of [wrongPrim(t.items), null, [], {}]) out.push([`[0]=${JSON.stringify(bad)}`, [bad, ...v.slice(1)]]);
      out.push(['[] (empty)', []]);
      for (const [d, mv] of mutations(t.items, v[0], depth + 1)) out.push([`[0]${d}`, [mv, ...v.slice(1)]]);
    } else if (t.t === 'record' && isObj(v)) {
      const k = Object.keys(v)[0];
      if (k !== undefined) {
        for (const bad of [wrongPrim(t.values), null, [], {}]) out.push([`{${k}}=${JSON.stringify(bad)}`, { ...v, [k]: bad }]);
        out.push(['{bogusKey}', { ...v, 'bogus key!': v[k] }]);
        for (const [d, mv] of mutations(t.values, v[k], depth + 1)) out.push([`{${k}}${d}`, { ...v, [k]: mv }]);
      }
    } else if ((t.t === 'union' || t.t === 'discriminated') && v !== undefined) {
      t.options.forEach((o, i) => {
        const ev = i === 0 ? v : example(o, depth + 1);
        if (i > 0) out.push([`|${i} example`, ev]);
        for (const [d, mv] of mutations(o, ev, depth + 1)) out.push([`|${i}${d}`, mv]);
      });
      if (t.t === 'discriminated') out.push([`.${t.key}=bogus`, { ...(isObj(v) ? v : {}), [t.key]: 'bogus' }]);
    }
    return out;
  }
  for (const [k, ft] of Object.entries(FIELDS)) {
    const ex = example(ft);
    const gen = [['example', ex], ['fullExample', fullExample(ft)], ['wrongPrim', wrongPrim(ft)], ['null', null], ['array', []], ['array1', [ex]], ['object', {}], ['number', 0], ['string', ''], ['true', true]];
    for (const [d, v] of mutations(ft, ex, 0)) gen.push([d, v]);
    const seen = new Set();
    for (const [d, v] of gen) {
      const text = JSON.stringify(v === undefined ? {} : { [k]: v });
      if (seen.has(text)) continue; seen.add(text);
      cases.push([`gen ${k} ${d}`, text]);
    }
  }

  // run both
  const refineKeys = new Set(); // top-level keys whose description carries refine/preprocess/transform somewhere
  (function () {
    for (const [k, ft] of Object.entries(FIELDS)) if (/"(refine|preprocess|transform)"/.test(JSON.stringify(ft))) refineKeys.add(k);
  })();
  const strip = (x) => JSON.stringify(x, (k, y) => (y === OPAQUE ? '<opaque>' : y));
  let agree = 0, total = 0, dataAgree = 0, dataTotal = 0;
  const mism = [], dataMism = [];
  for (const [label, text] of cases) {
    let parsed;
    if (text.trim() === '') parsed = {};
    else { try { parsed = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text); } catch { parsed = null; } }
    const a = structuredClone(parsed), b = structuredClone(parsed);
    uye(a, 'settings.json'); uye(b, 'settings.json');
    const z = NM().safeParse(a);
    const m = checkSettings(b);
    total++;
    if (z.success === m.ok) {
      agree++;
      if (z.success) {
        const ms = strip(m.value);
        if (!ms.includes('<opaque>')) { dataTotal++; if (JSON.stringify(z.data) === ms) dataAgree++; else dataMism.push([label, text, JSON.stringify(z.data), ms]); }
      }
    } else {
      const top = isObj(parsed) ? Object.keys(parsed) : [];
      const allCustom = (is) => is.every((i) => i.code === 'custom' || (i.code === 'invalid_union' && i.errors.some((o) => o.length > 0 && allCustom(o))));
      const zodIssuesAllCustom = !z.success && allCustom(z.error.issues);
      mism.push({ label, text, zod: z.success, model: m.ok, refine: top.some((k) => refineKeys.has(k)), custom: zodIssuesAllCustom, issue: z.success ? '' : JSON.stringify(z.error.issues.map((i) => [i.path.join('.'), i.message]).slice(0, 2)) });
    }
  }
  console.log(`cases: ${total} (reported: ${nReport}, hand edge cases: ${nFixed - nReport}, generated: ${total - nFixed})`);
  // sanity: the generated "example" for each top-level key must be accepted by zod
  const badEx = cases.filter(([l]) => / example$/.test(l) && l.startsWith('gen ') && l.split(' ').length === 3).filter(([, t]) => !NM().safeParse(JSON.parse(t)).success);
  console.log(`top-level examples rejected by the schema: ${badEx.length}`, badEx.map((x) => x[1]).join(' '));
  console.log(`accept/reject agreement: ${agree}/${total} = ${(100 * agree / total).toFixed(2)}%`);
  console.log(`parsed-output agreement (where both accept and no transform involved): ${dataAgree}/${dataTotal}`);
  const nonRefine = mism.filter((x) => !x.custom);
  console.log(`mismatches: ${mism.length}, of which caused only by zod refinements (every zod issue has code "custom" and the model accepts): ${mism.length - nonRefine.length}; other: ${nonRefine.length}`);
  console.log(`agreement excluding refinement-only failures: ${agree}/${total - (mism.length - nonRefine.length)}`);
  for (const x of mism) console.log(`MISMATCH${x.custom ? ' [refinement]' : ' [TYPE]'}: ${x.label}: ${x.text.slice(0, 300)} zod=${x.zod} model=${x.model} ${x.issue}`);
  for (const x of dataMism.slice(0, verbose ? 1e9 : 10)) console.log('DATA-MISMATCH', x[0], x[1].slice(0, 200), '\n   zod  ', x[2].slice(0, 300), '\n   model', x[3].slice(0, 300));
}
