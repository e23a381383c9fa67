/**
 * The exported types against the committed `schemas/serve.schema.json` (or
 * `$LATCH_SERVE_SCHEMA`): each interface has its definition's fields, and
 * requires just those the schema requires; each literal union has the
 * definition's values. The types are read with the TypeScript compiler's
 * checker from `src/`, as a harness's compiler sees them.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** This file's directory: build-test/test/ once compiled. */
const HERE = dirname(fileURLToPath(import.meta.url));

/** The nearest `relative` in `start` or a directory above it. */
function findUp(start: string, relative: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`no ${relative} in ${start} or above it`);
  }
}

/** A JSON Schema, as far as this test reads it. */
interface Shape {
  $ref?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  oneOf?: Array<{ const?: unknown }>;
  enum?: unknown[];
}

/** The schema's definitions, by name. */
function loadDefinitions(): Record<string, Shape> {
  const given = process.env["LATCH_SERVE_SCHEMA"];
  const path = given !== undefined && given !== "" ? given : findUp(HERE, join("schemas", "serve.schema.json"));
  const schema = JSON.parse(readFileSync(path, "utf8")) as { $defs?: Record<string, Shape> };
  assert.ok(schema.$defs !== undefined, `${path} has no $defs`);
  return schema.$defs;
}

/**
 * The shape at `pointer`, a path under `$defs` (`Outcome`,
 * `TrustApproveResult/properties/approved/items`), its `$ref`s followed.
 */
function shapeAt(definitions: Record<string, Shape>, pointer: string): Shape {
  const [name = "", ...steps] = pointer.split("/");
  let shape: unknown = definitions[name];
  for (const step of steps) shape = (shape as Record<string, unknown> | undefined)?.[step];
  assert.ok(shape !== undefined, `the schema has no ${pointer}`);
  let resolved = shape as Shape;
  while (resolved.$ref !== undefined) {
    const target = resolved.$ref.replace(/^#\/\$defs\//, "");
    assert.ok(definitions[target] !== undefined, `${pointer}: no definition ${resolved.$ref}`);
    resolved = definitions[target];
  }
  return resolved;
}

/** The package's source, type-checked with its own tsconfig.json, and its entry point's exports. */
function loadTypes(): { checker: ts.TypeChecker; exports: Map<string, ts.Symbol> } {
  const tsconfig = findUp(HERE, "tsconfig.test.json").replace(/tsconfig\.test\.json$/, "tsconfig.json");
  const read = ts.readConfigFile(tsconfig, (path) => ts.sys.readFile(path));
  assert.equal(read.error, undefined, `${tsconfig} does not parse`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig));
  const entry = join(dirname(tsconfig), "src", "index.ts");
  const program = ts.createProgram([entry], { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  assert.ok(source !== undefined, `${entry} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module !== undefined, `${entry} is not a module`);
  const exports = new Map<string, ts.Symbol>();
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported;
    exports.set(exported.name, symbol);
  }
  return { checker, exports };
}

const definitions = loadDefinitions();
const { checker, exports } = loadTypes();

/**
 * The type at `path`: an exported type's name, then property names, `[]`
 * for an array's items (`Explanation.ignored.[]`); `undefined` and `null`
 * are dropped from each step's type, as the schema's optional fields are.
 */
function typeAt(path: string): ts.Type {
  const [name = "", ...steps] = path.split(".");
  const symbol = exports.get(name);
  assert.ok(symbol !== undefined, `@latch/client exports no ${name}`);
  let type = checker.getDeclaredTypeOfSymbol(symbol);
  for (const step of steps) {
    const next = step === "[]" ? type.getNumberIndexType() : propertyType(type, step);
    assert.ok(next !== undefined, `${path}: ${checker.typeToString(type)} has no ${step}`);
    type = checker.getNonNullableType(next);
  }
  return type;
}

/** The type of `type`'s property `name`, if it has one. */
function propertyType(type: ts.Type, name: string): ts.Type | undefined {
  const property = checker.getPropertyOfType(type, name);
  return property === undefined ? undefined : checker.getTypeOfSymbol(property);
}

/** The fields of the object type at `path`, each with whether it is required. */
function fieldsOf(path: string): { fields: string[]; required: string[] } {
  const properties = checker.getPropertiesOfType(typeAt(path));
  assert.ok(properties.length > 0, `${path} has no fields`);
  return {
    fields: properties.map((p) => p.name).sort(),
    required: properties.filter((p) => (p.flags & ts.SymbolFlags.Optional) === 0).map((p) => p.name).sort(),
  };
}

/** The string literals of the union type at `path` (a `string & {}` member, for values latch may add, is left out). */
function literalsOf(path: string): string[] {
  const type = typeAt(path);
  const members = type.isUnion() ? type.types : [type];
  return members.filter((t) => t.isStringLiteral()).map((t) => (t as ts.StringLiteralType).value).sort();
}

/** The names in `names` and not in `others`, sorted. */
function without(names: string[], others: string[]): string[] {
  return names.filter((name) => !others.includes(name)).sort();
}

/** `camelCase` as the wire spells it, `snake_case`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
}

/** Each object type (by its path, see {@link typeAt}) and the schema definition it types. */
const OBJECTS: Record<string, string> = {
  WireConfig: "InitializeParams",
  LatchEvent: "Event",
  ToolCall: "ToolCall",
  "ToolCall.server": "ToolServer",
  Compaction: "Compaction",
  "LatchEvent.expansion": "Expansion",
  "LatchEvent.model_switch": "ModelSwitch",
  "LatchEvent.instructions": "Instructions",
  "LatchEvent.worktree": "Worktree",
  "LatchEvent.task": "Task",
  "LatchEvent.team": "Team",
  "LatchEvent.elicitation": "Elicitation",
  "LatchEvent.display": "MessageChunk",
  Outcome: "FireResult",
  Reason: "Reason",
  ContextEntry: "Injection",
  Notice: "Notice",
  PublishedEvent: "PublishedEvent",
  Continuation: "Continuation",
  Halt: "Halt",
  ElicitationAnswer: "ElicitationAnswer",
  PermissionUpdates: "PermissionUpdates",
  Run: "HookRun",
  SourceLocation: "SourceRef",
  Explanation: "Explanation",
  "Explanation.ignored.[]": "IgnoredKey",
  Diagnostic: "Diagnostic",
  InitializeResult: "InitializeResult",
  "InitializeResult.server": "InitializeResult/properties/server",
  AsyncResult: "AsyncResultParams",
  DiagnosticsNotification: "DiagnosticsParams",
  TrustedHook: "Listed",
  TrustChange: "TrustApproveResult/properties/approved/items",
};

/** Each literal union (by its path) and the schema definition of its values. */
const UNIONS: Record<string, string> = {
  EventKind: "EventKind",
  Decision: "Decision",
  Placement: "Placement",
  NoticeKind: "NoticeKind",
  RunStatus: "RunStatus",
  Dialect: "DialectName",
  "Run.trust": "TrustWord",
  "Diagnostic.severity": "Severity",
};

describe("the types and schemas/serve.schema.json", () => {
  for (const [path, pointer] of Object.entries(OBJECTS)) {
    test(`${path} has the fields of ${pointer}, and requires those it requires`, () => {
      const shape = shapeAt(definitions, pointer);
      const properties = Object.keys(shape.properties ?? {});
      const { fields, required } = fieldsOf(path);
      assert.deepEqual(without(properties, fields), [], `${path} lacks fields of ${pointer}`);
      assert.deepEqual(without(fields, properties), [], `${path} has fields ${pointer} has not`);
      assert.deepEqual(required, [...(shape.required ?? [])].sort(), `${path}'s required fields`);
    });
  }

  for (const [path, pointer] of Object.entries(UNIONS)) {
    test(`${path} has the values of ${pointer}`, () => {
      const shape = shapeAt(definitions, pointer);
      const values = shape.oneOf?.map((variant) => variant.const) ?? shape.enum ?? [];
      assert.ok(values.length > 0, `${pointer} lists no values`);
      assert.deepEqual(literalsOf(path), [...values].map(String).sort());
    });
  }

  test("LatchConfig has WireConfig's keys, in camelCase", () => {
    assert.deepEqual(fieldsOf("LatchConfig").fields.map(snakeCase).sort(), fieldsOf("WireConfig").fields);
  });
});
