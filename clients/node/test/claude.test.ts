/**
 * `userMessage`: the rule on its own, then the recorded batches run through
 * a real `latch serve` (as latch's `tests/it/claude_message.rs` runs them
 * through `latch fire`), each of which must give the recorded user message
 * byte for byte. The recordings are read from the repository
 * (`recordings/claude/<case>/`).
 */

import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import {
  LatchClient,
  pieceFromContext,
  userMessage,
  type Block,
  type ContextEntry,
  type Json,
  type Outcome,
  type Piece,
  type ToolCall,
} from "../src/index.js";
import { latchBin } from "./fixture.js";

// build-test/test/ -> the package's root, and the repository's.
const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));
const REPO = join(PACKAGE, "..", "..");

const text = (t: string): Block => ({ type: "text", text: t });
const result = (tool_use_id: string, content: string, is_error = false): Block => ({
  type: "tool_result",
  tool_use_id,
  content,
  is_error,
});
const tr = (tool_use_id: string, content: string, is_error = false): Piece => ({
  kind: "tool_result",
  tool_use_id,
  content,
  is_error,
});
const msg = (t: string): Piece => ({ kind: "message", text: t });
const att = (t: string): Piece => ({ kind: "attachment", text: t });

describe("userMessage", () => {
  test("texts that are messages end with a newline before another", () => {
    // r3_deny_slow_plus_context_fast: a denied call, then two PreToolUse contexts.
    assert.deepEqual(userMessage([msg("B"), msg("A"), tr("t", "DENY reason", true)]), [
      result("t", "DENY reason", true),
      text("B\n"),
      text("A"),
    ]);
  });

  test("an attachment right after a result is folded into it", () => {
    // r10_seam_single_post_ctx_batch: the batch text moves before the
    // PostToolUse text and is folded into the result, both trimmed.
    assert.deepEqual(userMessage([tr("t", "hi\n"), msg("POST"), att("  BATCH\n")]), [
      result("t", "hi\n\nBATCH"),
      text("POST"),
    ]);
  });

  test("an attachment after a text is a block without a newline", () => {
    // r10_seam_single_pre_ctx_batch
    assert.deepEqual(userMessage([msg("PRE"), tr("t", "hi"), att("BATCH")]), [
      result("t", "hi"),
      text("PRE"),
      text("BATCH"),
    ]);
  });

  test("attachments move back to the last result before them", () => {
    // r3_post_tool_batch_two_contexts: the batch texts move before the second
    // call's PostToolUse text; the last of them gets "\n" from it.
    const pieces = [tr("t1", "one"), msg("POST"), tr("t2", "two"), msg("POST"), att("B"), att("A")];
    assert.deepEqual(userMessage(pieces), [
      result("t1", "one"),
      result("t2", "two"),
      text("POST"),
      text("B"),
      text("A\n"),
      text("POST"),
    ]);
  });

  test("attachments without a result go first", () => {
    // A turn's first message: the prompt, then SessionStart and UserPromptSubmit texts.
    assert.deepEqual(userMessage([msg("prompt"), att("SessionStart"), att("UserPromptSubmit")]), [
      text("SessionStart"),
      text("UserPromptSubmit\n"),
      text("prompt"),
    ]);
  });

  test("folding trims as JavaScript does, and an empty result leaves the text alone", () => {
    assert.deepEqual(userMessage([tr("t", "\ufeff\u3000out\u0085\x1f \n"), att("\u2028X\ufeff")]), [
      result("t", "out\u0085\x1f\n\nX"),
    ]);
    assert.deepEqual(userMessage([tr("t", " \n"), att("X")]), [result("t", "X")]);
  });

  test("a result without is_error is not an error, and the pieces are not changed", () => {
    const pieces: Piece[] = [{ kind: "tool_result", tool_use_id: "t", content: "out" }, att("X")];
    const copy = structuredClone(pieces);
    assert.deepEqual(userMessage(pieces), [result("t", "out\n\nX")]);
    assert.deepEqual(pieces, copy);
    assert.deepEqual(userMessage(new Set(pieces)), [result("t", "out\n\nX")]);
  });

  test("an attachment after an MCP result (a list) is a block of its own", () => {
    const blocks: Json[] = [{ type: "text", text: "MCP_RESULT" }];
    assert.deepEqual(
      userMessage([{ kind: "tool_result", tool_use_id: "t", content: blocks }, msg("POST"), att("BATCH")]),
      [{ type: "tool_result", tool_use_id: "t", content: blocks }, text("BATCH\n"), text("POST")],
    );
  });

  test("context entries are messages after a tool result and attachments elsewhere", () => {
    const entry = (placement: string): ContextEntry => ({ hook: "h", placement, text: "T" });
    assert.deepEqual(pieceFromContext(entry("after_tool_result")), msg("T"));
    for (const placement of ["append_to_tool_result", "with_prompt", "first_user_message"]) {
      assert.deepEqual(pieceFromContext(entry(placement)), att("T"));
    }
    assert.equal(pieceFromContext(entry("compaction_prompt")), undefined);
  });
});

/**
 * The fixture hook in place of the recording harness's: prints `--stdout`
 * (and a newline) after `--sleep`; `--label` and other flags are ignored.
 */
const HOOK = `#!/bin/sh
out=""; sleep_s=0
while [ $# -gt 0 ]; do
  case "$1" in
    --stdout) out=$2; shift 2;;
    --sleep) sleep_s=$2; shift 2;;
    --label) shift 2;;
    *) shift;;
  esac
done
cat >/dev/null
[ "$sleep_s" = 0 ] || sleep "$sleep_s"
[ -z "$out" ] || printf '%s\\n' "$out"
exit 0
`;

interface Handler {
  command: string;
  [key: string]: unknown;
}
interface Settings {
  hooks: Record<string, { hooks: Handler[] }[]>;
}
interface ToolUse {
  name: string;
  input: Json;
}
interface Script {
  turns: { tool_uses?: ToolUse[]; tool_use?: ToolUse }[];
}
interface Observed {
  api_main_requests: { new_messages: { role: string; content: unknown }[] }[];
}

async function readJson<T>(case_: string, file: string): Promise<T> {
  return JSON.parse(await readFile(join(REPO, "recordings", "claude", case_, file), "utf8")) as T;
}

/**
 * The recording's settings, its harness hook (`@HOOK@ --label L --out @OUT@
 * …`) swapped for the fixture hook, which takes the same flags.
 */
async function recordedSettings(case_: string, hook: string): Promise<Settings> {
  const settings = await readJson<Settings>(case_, "settings.json");
  for (const groups of Object.values(settings.hooks)) {
    for (const handler of groups.flatMap((g) => g.hooks)) {
      const found = /^@HOOK@ --label (\S+) --out @OUT@(.*)$/s.exec(handler.command);
      assert.ok(found !== null, handler.command);
      const [, label, args] = found;
      handler.command = `${hook} --label ${label ?? ""} ${(args ?? "").trimStart()}`.trimEnd();
    }
  }
  return settings;
}

/** The tool calls of the recorded model's first turn. */
async function recordedCalls(case_: string): Promise<ToolUse[]> {
  const turn = (await readJson<Script>(case_, "script.json")).turns[0];
  assert.ok(turn !== undefined, `${case_}: a first turn`);
  const uses = turn.tool_uses ?? (turn.tool_use === undefined ? [] : [turn.tool_use]);
  return uses;
}

/** The last user message of the recording's last request. */
async function recordedMessage(case_: string): Promise<unknown> {
  const last = (await readJson<Observed>(case_, "observed.json")).api_main_requests.at(-1);
  const user = last?.new_messages.filter((m) => m.role === "user").at(-1);
  assert.ok(user !== undefined, `${case_}: a user message`);
  return user.content;
}

const piecesOf = (outcome: Outcome): Piece[] => (outcome.context ?? []).flatMap((c) => pieceFromContext(c) ?? []);

/**
 * Runs the recorded batch through latch as a harness would (for each call
 * `tool_before`, the tool, `tool_after`; then `tool_batch`), and builds the
 * message from the tool results and the outcomes' texts.
 */
async function rebuiltMessage(case_: string, outputs: Json[]): Promise<unknown> {
  const root = await mkdtemp(join(tmpdir(), "latch-client-claude-"));
  try {
    const project = join(root, "project");
    await mkdir(join(project, ".claude"), { recursive: true });
    await mkdir(join(root, "home"));
    await mkdir(join(root, "managed"));
    const hook = join(root, "hook.sh");
    await writeFile(hook, HOOK);
    await chmod(hook, 0o755);
    const settings = await recordedSettings(case_, hook);
    await writeFile(join(project, ".claude", "settings.json"), JSON.stringify(settings));
    const calls = await recordedCalls(case_);
    assert.equal(calls.length, outputs.length, `${case_}: one output per call`);

    const latch = await LatchClient.start({
      bin: latchBin(),
      config: {
        dialects: ["claude"],
        project,
        home: join(root, "home"),
        claudeManagedDir: join(root, "managed"),
        stateDir: join(root, "state"),
      },
    });
    try {
      const turn = { session_id: "s1", prompt_id: "p1", permission_mode: "bypassPermissions" };
      const pieces: Piece[] = [];
      const batch: ToolCall[] = [];
      for (const [i, { name, input }] of calls.entries()) {
        const output = outputs[i] ?? "";
        const call_id = `toolu_fake_00_${String(i).padStart(2, "0")}`;
        const tool = { name, input, call_id };
        const before = await latch.fire({ event: "tool_before", ...turn, tool });
        pieces.push(...piecesOf(before));
        if (before.decision === "deny") {
          const notice = before.notices?.[0]?.text;
          assert.ok(notice !== undefined, `${case_}: a notice`);
          pieces.push({ kind: "tool_result", tool_use_id: call_id, content: notice, is_error: true });
          continue;
        }
        const content = Array.isArray(output) ? output : String(output);
        pieces.push({ kind: "tool_result", tool_use_id: call_id, content });
        pieces.push(...piecesOf(await latch.fire({ event: "tool_after", ...turn, tool: { ...tool, output } })));
        batch.push({ ...tool, output });
      }
      if (batch.length > 0) {
        pieces.push(...piecesOf(await latch.fire({ event: "tool_batch", ...turn, tool_calls: batch })));
      }
      return JSON.parse(JSON.stringify(userMessage(pieces))) as unknown;
    } finally {
      await latch.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The MCP server's answer in the round-12 recordings. */
const MCP_ANSWER: Json[] = [{ type: "text", text: "MCP_RESULT echo_tool ORIGINAL_MCP_SENTINEL" }];

const CASES: [string, Json[]][] = [
  // Two PreToolUse contexts on a denied call: the first ends with "\n".
  ["r3_deny_slow_plus_context_fast", ["hi"]],
  // PostToolUse contexts on two calls and two PostToolBatch contexts: the
  // batch texts move before the second call's text.
  ["r3_post_tool_batch_two_contexts", ["one", "two"]],
  ["r3_post_tool_batch_posttooluse_ctx_only", ["one", "two"]],
  // Nothing but tool results before it: the batch text is folded into the last result.
  ["r3_post_tool_batch_context", ["one", "two"]],
  ["r10_seam_two_pre_post_batch", ["one", "two"]],
  ["r10_seam_two_post_first_only_batch", ["one", "two"]],
  ["r10_seam_single_post_ctx_batch", ["hi"]],
  ["r10_seam_single_pre_ctx_batch", ["hi"]],
  // After an MCP tool's list of blocks the batch text is a block of its own.
  ["r12_mcp_list_batch_ctx", [MCP_ANSWER]],
  ["r12_mcp_list_post_and_batch", [MCP_ANSWER]],
  ["r12_bash_string_batch_ctx", ["hi"]],
];

describe("the recorded user messages, rebuilt through latch serve", () => {
  for (const [case_, outputs] of CASES) {
    test(case_, async () => {
      const recorded = await recordedMessage(case_);
      if (case_ === "r3_deny_slow_plus_context_fast" && Array.isArray(recorded)) {
        // The deny's text is Claude Code 2.1.332's, a hook error; the layout
        // is still 2.1.197's (recordings/claude-2.1.332/README.md, item 15).
        (recorded[0] as Record<string, unknown>)["content"] = "PreToolUse:Bash hook error: DENY_A_SENTINEL reason";
      }
      assert.deepEqual(await rebuiltMessage(case_, outputs), recorded);
    });
  }
});

test("the README's userMessage snippet runs as written", async () => {
  const readme = await readFile(join(PACKAGE, "README.md"), "utf8");
  const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1] ?? []);
  const [code] = snippets.filter((s) => s.includes("userMessage("));
  assert.ok(code !== undefined, "the README has a userMessage snippet");
  // Its import is this package's; the outcomes and `messages` are the harness's.
  const body = code.replace(/^import .* from "@latch\/client";\n/m, "");
  assert.notEqual(body, code);
  const { outputText, diagnostics } = ts.transpileModule(body, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    reportDiagnostics: true,
  });
  assert.deepEqual(diagnostics, []);
  const post = "<system-reminder>\nPostToolUse:Bash hook additional context: POST\n</system-reminder>";
  const batch = "<system-reminder>\nPostToolBatch hook additional context: BATCH\n</system-reminder>";
  const outcome = (context: ContextEntry[]): Outcome => ({ event: "x", decision: "proceed", runs: [], context });
  const messages: unknown[] = [];
  const run = new Function("pieceFromContext", "userMessage", "before", "output", "after", "batch", "messages", outputText);
  run(
    pieceFromContext,
    userMessage,
    outcome([]),
    "hi\n",
    outcome([{ hook: "h", placement: "after_tool_result", text: post }]),
    outcome([{ hook: "h", placement: "append_to_tool_result", text: batch }]),
    messages,
  );
  assert.deepEqual(messages, [{ role: "user", content: [result("toolu_1", `hi\n\n${batch}`), text(post)] }]);
});
