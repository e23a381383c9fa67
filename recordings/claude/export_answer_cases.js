#!/usr/bin/env node
// export_answer_cases.js — systematic hook-answer cases for Claude Code's hook JSON answer schema, as JSONL.
//
//   node export_answer_cases.js                                   2.1.197 (run_hookout.js + cc_hookout_schema_extracted.js)
//   CC_WORK=<dir> CC_OUT=../claude-2.1.332 node export_answer_cases.js
//       2.1.332: <dir>/cc_settings_schema_extracted.js (../claude-2.1.332/extract_settings_schema.js) carries the
//       answer schema as `evt` ($Pe) and the function reading a hook's stdout as `hdc` (k8); the cases add its new
//       shapes (PreModelSwitch, PostModelSwitch, PreSkillShellCommand) and fields (UserPromptExpansion's
//       suppressOriginalPrompt, PostToolUse's classifierContext, PreToolUse's permissionDisplay)
//
// Writes answer-cases.jsonl, one object per line:
//   {"answer": <hook JSON answer object>,
//    "valid": <evt().safeParse(answer).success>,
//    "message": <null when valid, else the first line of hdc(JSON.stringify(answer)).validationError>}
//
// evt() comes from cc_hookout_schema_extracted.js (verbatim bundle code, see build.js); hdc is the verbatim copy in
// run_hookout.js. hdc is fed JSON.stringify(answer), exactly what a hook would print. Every answer is normalised through
// JSON.stringify/JSON.parse (only JSON-representable values), duplicates (same JSON text) are dropped, first wins.
// As a self-check, `valid` must equal ("json" in hdc(...)); the script aborts otherwise.
'use strict';
const fs = require('fs');
const path = require('path');
const WORK = process.env.CC_WORK;
let hdc, LOG = [], V332 = false;
if (WORK) { // 2.1.332
  V332 = require(path.join(WORK, 'cc_settings_schema_extracted.js')).version === '2.1.332';
  hdc = globalThis.hdc; // eslint-disable-line prefer-destructuring
} else {
  ({ hdc, LOG } = require('./run_hookout.js')); // also loads cc_hookout_schema_extracted.js (globalThis.evt)
}

const DIR = __dirname;
const OUT = path.join(process.env.CC_OUT || DIR, 'answer-cases.jsonl');

// ---- case collection ---------------------------------------------------------------------------------------------
const seen = new Set();
const answers = [];
function add(a) {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) throw new Error('answer must be an object');
  const text = JSON.stringify(a);
  if (seen.has(text)) return;
  seen.add(text);
  answers.push(JSON.parse(text));
}
const clone = (v) => JSON.parse(JSON.stringify(v));
const without = (o, k) => { const c = clone(o); delete c[k]; return c; };
const withKey = (o, k, v) => ({ ...clone(o), [k]: clone(v) });

// ---- value palettes by expected type -----------------------------------------------------------------------------
// Each returns {valid: [...], invalid: [...]} — "invalid" are null, wrong primitives, arrays, objects.
const T = {
  bool: () => ({ valid: [true, false], invalid: [null, 'true', 'false', 1, 0, '', [], [true], {}, { value: true }] }),
  string: () => ({ valid: ['text', '', 'multi\nline \u2014 \u00e9'], invalid: [null, 5, 0, true, false, [], ['text'], {}, { text: 'x' }] }),
  number: () => ({ valid: [5, 0, -1, 1.5, 600000], invalid: [null, '5', true, false, [], [5], {}, { ms: 5 }] }),
  record: () => ({ valid: [{}, { command: 'ls -la' }, { a: 1, b: null, c: [1, 'x'], d: { e: false } }],
    invalid: [null, 'x', '', 1, true, false, [], [1], [{ command: 'ls' }]] }),
  stringArray: () => ({ valid: [[], ['/abs/path'], ['/a', '/b', '']],
    invalid: [null, '/abs/path', 1, true, {}, { 0: '/a' }, [1], [null], ['/a', 2], [['/a']], [{}]] }),
  unknown: () => ({ valid: [null, 'text', 0, 1.5, true, false, [], [1, 'x'], {}, { content: [{ type: 'text', text: 'x' }] }], invalid: [] }),
  enum: (vals, bad) => ({ valid: vals.slice(), invalid: [...bad, null, 1, true, [], [vals[0]], {}, { value: vals[0] }] }),
  literalTrue: () => ({ valid: [true], invalid: [false, null, 'true', 1, 0, [], [true], {}] }),
};

// ---- 1. top level ------------------------------------------------------------------------------------------------
const TOP = {
  continue: T.bool(),
  suppressOutput: T.bool(),
  stopReason: T.string(),
  decision: T.enum(['approve', 'block'], ['deny', '', 'allow', 'Approve', 'BLOCK', 'ask', 'approve ']),
  reason: T.string(),
  systemMessage: T.string(),
  terminalSequence: { valid: ['\u001b]9;Build done\u0007', '\u0007', '', 'x'], invalid: T.string().invalid },
  async: { valid: [true, false], invalid: [null, 'true', 1, 0, [], [true], {}] }, // `false` matches Yim (async stripped)
  asyncTimeout: T.number(),
  hookSpecificOutput: {
    valid: [{ hookEventName: 'PreToolUse', permissionDecision: 'allow' }, { hookEventName: 'Stop', additionalContext: 'c' }],
    invalid: [null, 'PreToolUse', '', 1, 0, true, false, [], [{ hookEventName: 'Stop' }], {}],
  },
  additionalContext: { valid: ['x'], invalid: [null, 5, [], {}] },     // unknown at top level: always stripped
  unknownKey: { valid: ['x', null, 5, true, [], [1], {}, { a: 1 }], invalid: [] }, // unknown key: any value
  permissionDecision: { valid: ['allow', 'deny', null, 5], invalid: [] },             // listed in the help text, not in the schema
};
const TOP_BASES = [
  {},
  { decision: 'block', reason: 'Blocked by policy' },
  { continue: false, stopReason: 'stop', systemMessage: 'warn' },
  { async: true },
  { async: true, asyncTimeout: 30000 },
  { async: false },
  { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ctx' } },
];
for (const base of TOP_BASES) {
  add(base);
  for (const [k, pal] of Object.entries(TOP)) {
    for (const v of [...pal.valid, ...pal.invalid]) add(withKey(base, k, v));
  }
}
// pairwise: two top-level fields at once (valid/invalid combinations, first valid & first two invalid values)
const topKeys = Object.keys(TOP).filter((k) => k !== 'unknownKey' && k !== 'permissionDecision');
for (let i = 0; i < topKeys.length; i++) {
  for (let j = i + 1; j < topKeys.length; j++) {
    const A = TOP[topKeys[i]], B = TOP[topKeys[j]];
    const av = [A.valid[0], ...A.invalid.slice(0, 1)], bv = [B.valid[0], ...B.invalid.slice(0, 1)];
    for (const x of av) for (const y of bv) add({ [topKeys[i]]: clone(x), [topKeys[j]]: clone(y) });
  }
}
// every top-level field valid at once
add({ continue: true, suppressOutput: false, stopReason: 's', decision: 'approve', reason: 'r', systemMessage: 'm',
  terminalSequence: '\u0007', hookSpecificOutput: { hookEventName: 'Notification', additionalContext: 'c' } });
add({ continue: true, suppressOutput: false, stopReason: 's', decision: 'approve', reason: 'r', systemMessage: 'm',
  terminalSequence: '\u0007', hookSpecificOutput: { hookEventName: 'Notification', additionalContext: 'c' }, async: true, asyncTimeout: 1 });

// ---- 2. hookSpecificOutput variants ------------------------------------------------------------------------------
const S = 'string', B = 'bool', R = 'record', SA = 'stringArray', U = 'unknown';
const ACTION = ['enum', ['accept', 'decline', 'cancel'], ['Accept', 'reject', '', 'allow']];
const PDEC = ['enum', ['allow', 'deny', 'ask', 'defer'], ['approve', 'block', 'Allow', '', 'passthrough']];
// fields: name -> type; required fields listed separately
const VARIANTS = {
  PreToolUse: { fields: { permissionDecision: PDEC, permissionDecisionReason: S, updatedInput: R, additionalContext: S } },
  UserPromptSubmit: { fields: { additionalContext: S, sessionTitle: S, suppressOriginalPrompt: B } },
  UserPromptExpansion: { fields: { additionalContext: S } },
  SessionStart: { fields: { additionalContext: S, initialUserMessage: S, sessionTitle: S, watchPaths: SA, reloadSkills: B } },
  Setup: { fields: { additionalContext: S } },
  SubagentStart: { fields: { additionalContext: S } },
  PostToolUse: { fields: { additionalContext: S, updatedToolOutput: U, updatedMCPToolOutput: U } },
  PostToolUseFailure: { fields: { additionalContext: S } },
  PostToolBatch: { fields: { additionalContext: S } },
  Stop: { fields: { additionalContext: S } },
  SubagentStop: { fields: { additionalContext: S } },
  PermissionDenied: { fields: { retry: B } },
  Notification: { fields: { additionalContext: S } },
  PermissionRequest: { fields: { decision: 'prdecision' }, required: ['decision'] },
  Elicitation: { fields: { action: ACTION, content: R } },
  ElicitationResult: { fields: { action: ACTION, content: R } },
  CwdChanged: { fields: { watchPaths: SA } },
  FileChanged: { fields: { watchPaths: SA } },
  WorktreeCreate: { fields: { worktreePath: S }, required: ['worktreePath'] },
  MessageDisplay: { fields: { displayContent: S } },
};
if (V332) {
  VARIANTS.PreToolUse.fields.permissionDisplay = U; // .optional().catch(void 0)
  VARIANTS.UserPromptExpansion.fields.suppressOriginalPrompt = B;
  VARIANTS.PostToolUse.fields.classifierContext = S;
  VARIANTS.PreModelSwitch = { fields: { permissionDecision: ['enum', ['allow', 'deny', 'ask'], ['defer', 'approve', 'block', 'Allow', '']], permissionDecisionReason: S } };
  VARIANTS.PreSkillShellCommand = { fields: { permissionDecision: PDEC, permissionDecisionReason: S, updatedInput: R } };
  VARIANTS.PostModelSwitch = { fields: { additionalContext: S } };
}
const PR_DECISION_PALETTE = {
  valid: [{ behavior: 'allow' }, { behavior: 'deny' }, { behavior: 'allow', updatedInput: { command: 'ls' } },
    { behavior: 'deny', message: 'no', interrupt: true }],
  invalid: [null, 'allow', 'deny', '', 1, true, [], [{ behavior: 'allow' }], {}, { behavior: 'ask' }],
};
function palette(t) {
  if (Array.isArray(t)) return T.enum(t[1], t[2]);
  if (t === S) return T.string();
  if (t === B) return T.bool();
  if (t === R) return T.record();
  if (t === SA) return T.stringArray();
  if (t === U) return T.unknown();
  if (t === 'prdecision') return PR_DECISION_PALETTE;
  throw new Error('type ' + t);
}
const hso = (h) => ({ hookSpecificOutput: h });
const EVENT_NAMES = Object.keys(VARIANTS);
const NO_VARIANT = ['SessionEnd', 'PreCompact', 'TaskCreated', 'TaskCompleted', 'StopFailure', 'ConfigChange',
  'InstructionsLoaded', 'WorktreeRemove', 'TeammateIdle', 'PostCompact', ...(V332 ? ['DirectoryAdded'] : [])];
const UNKNOWN_NAMES = ['Bogus', '', 'pretooluse', 'PRETOOLUSE', 'PreToolUse ', ' Stop', 'Pre-Tool-Use', 'PermissionRequested',
  'SessionStartup', 'Elicitations', 'UserPromptSubmitted', 'all', '*'];

// Wrappers a hookSpecificOutput is tested under (top-level context)
const HSO_WRAPS = [
  (h) => hso(h),
  (h) => ({ decision: 'block', reason: 'r', hookSpecificOutput: h }),
  (h) => ({ continue: true, suppressOutput: true, systemMessage: 's', hookSpecificOutput: h }),
];

for (const [ev, spec] of Object.entries(VARIANTS)) {
  const req = spec.required || [];
  const fieldNames = Object.keys(spec.fields);
  const firstValid = (f) => palette(spec.fields[f]).valid[0];
  const reqObj = {}; for (const f of req) reqObj[f] = clone(firstValid(f));
  const all = { hookEventName: ev }; for (const f of fieldNames) all[f] = clone(firstValid(f));
  const minimal = { hookEventName: ev, ...clone(reqObj) };

  for (const wrap of HSO_WRAPS) {
    add(wrap({ hookEventName: ev }));                 // only hookEventName (invalid when fields are required)
    add(wrap(minimal));
    add(wrap(all));                                    // every field valid
    add(wrap(withKey(all, 'extraKey', 'stripped')));   // unknown key inside hookSpecificOutput
    add(wrap(without(all, 'hookEventName')));          // hookEventName missing
  }
  add({ async: true, hookSpecificOutput: clone(all) });
  add({ async: true, hookSpecificOutput: without(all, 'hookEventName') });
  add({ async: false, hookSpecificOutput: clone(all) });
  // required fields missing
  for (const f of req) {
    add(hso(without(all, f)));
    add(hso(without(minimal, f)));
    add({ decision: 'approve', hookSpecificOutput: without(all, f) });
  }
  // each field: all valid values and all wrong values, alone (with required) and with the other fields valid
  for (const f of fieldNames) {
    const pal = palette(spec.fields[f]);
    for (const v of [...pal.valid, ...pal.invalid]) {
      add(hso(withKey(minimal, f, v)));
      add(hso(withKey(all, f, v)));
      add({ decision: 'block', reason: 'r', hookSpecificOutput: withKey(all, f, v) });
      add(hso(withKey(without(minimal, 'hookEventName'), f, v)));   // same field, no hookEventName
    }
  }
  // hookEventName of this variant given in a wrong form
  for (const bad of [null, 1, true, [], [ev], {}, { name: ev }, ev.toLowerCase(), ev + ' ']) {
    add(hso({ ...clone(all), hookEventName: bad }));
  }
  // fields of this variant under every other event name (cross-variant mixing)
  for (const other of EVENT_NAMES) {
    if (other === ev) continue;
    add(hso({ ...clone(all), hookEventName: other }));
  }
}

// hookEventName missing / non-string / events with no variant / unknown names
for (const wrap of HSO_WRAPS) {
  add(wrap({}));
  add(wrap({ additionalContext: 'x' }));
  for (const bad of [null, 1, 0, true, false, [], ['PreToolUse'], {}, { hookEventName: 'Stop' }]) {
    add(wrap({ hookEventName: bad }));
    add(wrap({ hookEventName: bad, additionalContext: 'x' }));
  }
  for (const name of [...NO_VARIANT, ...UNKNOWN_NAMES]) {
    add(wrap({ hookEventName: name }));
    add(wrap({ hookEventName: name, additionalContext: 'x' }));
    add(wrap({ hookEventName: name, reason: 'r', extra: 1 }));
  }
}
for (const name of [...NO_VARIANT, ...UNKNOWN_NAMES]) {
  add({ async: true, hookSpecificOutput: { hookEventName: name } });
  add({ async: true, asyncTimeout: 5, hookSpecificOutput: { hookEventName: name, additionalContext: 'x' } });
  add({ continue: false, stopReason: 'done', hookSpecificOutput: { hookEventName: name, additionalContext: 'x' } });
}

// non-object hookSpecificOutput values, also under the other wrappers
for (const v of [null, 'PreToolUse', '', 'x', 1, 0, -1, 1.5, true, false, [], [1], ['PreToolUse'],
  [{ hookEventName: 'PreToolUse' }], [null]]) {
  for (const wrap of HSO_WRAPS) add(wrap(v));
  add({ async: true, hookSpecificOutput: v });
  add({ async: false, hookSpecificOutput: v });
}

// ---- 3. PermissionRequest decisions -------------------------------------------------------------------------------
const pr = (decision) => hso({ hookEventName: 'PermissionRequest', decision });
const prAlt = (decision) => ({ decision: 'approve', systemMessage: 'm', hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
const PRW = [pr, prAlt];

// allow + updatedInput
for (const w of PRW) for (const ui of [...T.record().valid, ...T.record().invalid]) add(w({ behavior: 'allow', updatedInput: clone(ui) }));

// updatedPermissions entries
const RULE_V = [{ toolName: 'Bash' }, { toolName: 'Bash', ruleContent: 'npm test:*' }, { toolName: 'mcp__srv__tool' },
  { toolName: '', ruleContent: '' }];
const RULE_BAD = [null, 'Bash', 'Bash(ls)', 1, true, [], ['Bash'], {}, { toolName: 1 }, { toolName: null }, { toolName: [] },
  { toolName: {} }, { ruleContent: 'ls' }, { toolName: 'Bash', ruleContent: 1 }, { toolName: 'Bash', ruleContent: null },
  { toolName: 'Bash', ruleContent: [] }, { toolName: 'Bash', ruleContent: {} }, { toolName: 'Bash', ruleContent: true }];
const BEHAV = { valid: ['allow', 'deny', 'ask'], invalid: ['defer', 'approve', 'block', '', 'Allow', null, 1, true, [], ['allow'], {}] };
const DEST = { valid: ['userSettings', 'projectSettings', 'localSettings', 'session', 'cliArg'],
  invalid: ['policySettings', 'flagSettings', 'managedSettings', 'user', '', 'Session', null, 1, true, [], ['session'], {}] };
const MODE = { valid: ['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'plan'],
  invalid: ['bypass', 'Plan', 'ask', '', 'delegate', null, 1, true, [], ['plan'], {}] };
const RULES = { valid: [[], RULE_V.slice(0, 1), RULE_V.slice(), [RULE_V[1], RULE_V[2]]],
  invalid: [null, 'Bash', 1, true, {}, { toolName: 'Bash' }, ...RULE_BAD.map((r) => [r]), [RULE_V[0], null]] };
const DIRS = { valid: [[], ['/abs/dir'], ['/a', '/b', '']],
  invalid: [null, '/abs/dir', 1, true, {}, { 0: '/a' }, [1], [null], ['/a', 2], [['/a']], [{}], [{ path: '/a' }]] };
const PERM_TYPES = {
  addRules: { rules: RULES, behavior: BEHAV, destination: DEST },
  replaceRules: { rules: RULES, behavior: BEHAV, destination: DEST },
  removeRules: { rules: RULES, behavior: BEHAV, destination: DEST },
  setMode: { mode: MODE, destination: DEST },
  addDirectories: { directories: DIRS, destination: DEST },
  removeDirectories: { directories: DIRS, destination: DEST },
};
const up = (entries) => pr({ behavior: 'allow', updatedPermissions: entries });
const upIn = (entries) => pr({ behavior: 'allow', updatedInput: { command: 'ls' }, updatedPermissions: entries });

for (const x of [[], null, 'addRules', 1, true, {}, { type: 'setMode', mode: 'plan', destination: 'session' }]) {
  add(up(clone(x)));
  add(upIn(clone(x)));
}
const validEntryOf = {};
for (const [type, fields] of Object.entries(PERM_TYPES)) {
  const base = { type };
  for (const [f, pal] of Object.entries(fields)) base[f] = clone(pal.valid[0]);
  validEntryOf[type] = base;
  add(up([base]));
  add(upIn([base]));
  add(up([withKey(base, 'extra', 1)]));                 // unknown key in an entry (stripped)
  // every valid value of every field
  for (const [f, pal] of Object.entries(fields)) {
    for (const v of pal.valid) { add(up([withKey(base, f, v)])); add(upIn([withKey(base, f, v)])); }
    // every wrong value of every field
    for (const v of pal.invalid) { add(up([withKey(base, f, v)])); add(upIn([withKey(base, f, v)])); }
    // field missing
    add(up([without(base, f)]));
    add(upIn([without(base, f)]));
  }
  // fields belonging to another type
  for (const [other, oFields] of Object.entries(PERM_TYPES)) {
    if (other === type) continue;
    const b = { type }; for (const [f, p] of Object.entries(oFields)) b[f] = clone(p.valid[0]);
    add(up([b]));
  }
  // valid entry followed by a broken one, and broken followed by valid
  add(up([base, { type }]));
  add(up([{ type }, base]));
  add(up([base, base]));
}
// all six types together
add(up(Object.values(validEntryOf).map(clone)));
add(upIn(Object.values(validEntryOf).map(clone)));
add(prAlt({ behavior: 'allow', updatedPermissions: Object.values(validEntryOf).map(clone) }));
// type discriminator wrong
for (const t of ['addRule', 'AddRules', 'setmode', '', 'addDirectory', 'removeDirectory', 'deleteRules', null, 1, true, [], ['addRules'], {}]) {
  add(up([{ type: t, rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'session' }]));
  add(up([{ type: t, mode: 'plan', destination: 'session' }]));
}
add(up([{ rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'session' }]));   // type missing
add(up([{ mode: 'plan', destination: 'session' }]));
add(up([{}]));
for (const x of [null, 'setMode', 1, true, [], [validEntryOf.setMode]]) add(up([clone(x)]));

// deny: message / interrupt of each type
for (const w of PRW) {
  for (const m of [...T.string().valid, ...T.string().invalid]) add(w({ behavior: 'deny', message: clone(m) }));
  for (const i of [...T.bool().valid, ...T.bool().invalid]) add(w({ behavior: 'deny', interrupt: clone(i) }));
}
for (const m of ['no', null, 5]) for (const i of [true, false, 'true', null]) add(pr({ behavior: 'deny', message: m, interrupt: i }));
// fields of the other behavior (stripped, still valid)
add(pr({ behavior: 'deny', updatedInput: { command: 'ls' } }));
add(pr({ behavior: 'deny', updatedInput: 'not-checked' }));
add(pr({ behavior: 'deny', updatedPermissions: 'not-checked' }));
add(pr({ behavior: 'allow', message: 'not-checked', interrupt: 'x' }));
add(pr({ behavior: 'allow', message: 5 }));
// unknown / wrong behavior
for (const b of ['ask', 'defer', 'approve', 'block', '', 'Allow', 'DENY', 'allow ', null, 1, true, false, [], ['allow'], {}, { behavior: 'allow' }]) {
  for (const w of PRW) {
    add(w({ behavior: b }));
    add(w({ behavior: b, message: 'm' }));
    add(w({ behavior: b, updatedInput: { command: 'ls' } }));
  }
}
add(pr({}));
add(pr({ message: 'm' }));
add(pr({ updatedInput: { command: 'ls' } }));
// decision missing / non-object
for (const w of [(x) => x, (x) => ({ decision: 'block', reason: 'r', ...x }), (x) => ({ async: true, ...x })]) {
  add(w(hso({ hookEventName: 'PermissionRequest' })));
  for (const d of PR_DECISION_PALETTE.invalid) add(w(hso({ hookEventName: 'PermissionRequest', decision: clone(d) })));
  add(w(hso({ hookEventName: 'PermissionRequest', permissionDecision: 'allow' })));   // PreToolUse field under PermissionRequest
  add(w(hso({ decision: { behavior: 'allow' } })));                                    // hookEventName missing
}

// ---- 4. evaluate ---------------------------------------------------------------------------------------------------
let nValid = 0, nInvalid = 0;
const messages = new Map();
const lines = [];
for (const answer of answers) {
  const text = JSON.stringify(answer);
  const valid = evt().safeParse(answer).success;
  LOG.length = 0;
  const r = hdc(text);
  if (valid !== ('json' in r)) throw new Error('evt().safeParse and hdc disagree on ' + text);
  const message = valid ? null : r.validationError.split('\n')[0];
  if (valid) nValid++; else nInvalid++;
  if (message) messages.set(message, (messages.get(message) || 0) + 1);
  lines.push(JSON.stringify({ answer, valid, message }));
}
fs.writeFileSync(OUT, lines.join('\n') + '\n');
const size = fs.statSync(OUT).size;
console.log(`${OUT}`);
console.log(`answers: ${answers.length}  valid: ${nValid}  invalid: ${nInvalid}`);
console.log(`file size: ${size} bytes (${(size / 1024).toFixed(1)} KiB)`);
console.log('distinct messages:');
for (const [m, n] of messages) console.log(`  ${n}\t${m}`);
