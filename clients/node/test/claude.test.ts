/**
 * `userMessage`: the rule on its own, then the recorded batches run through
 * a real `latch serve` (as latch's `tests/it/claude_message.rs` runs them
 * through `latch fire`), each of which must give the user message Claude
 * Code 2.1.332 sent byte for byte. The recordings are read from the
 * repository: the messages from `recordings/claude-2.1.332/messages.json`,
 * the settings and the model's script from `recordings/claude/<case>/` (the
 * same in both recordings).
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
  test("texts made before the result follow it as they are", () => {
    // r3_deny_slow_plus_context_fast: a denied call's two PreToolUse
    // contexts, made before its result, follow it with no newline.
    assert.deepEqual(userMessage([att("B"), att("A"), tr("t", "DENY reason", true)]), [
      result("t", "DENY reason", true),
      text("B"),
      text("A"),
    ]);
  });

  test("attachments right after a result are folded into it", () => {
    // r10_seam_single_post_ctx_batch: the PostToolUse text, then the batch
    // text, folded into the result, each trimmed.
    assert.deepEqual(userMessage([tr("t", "hi\n"), att("POST"), att("  BATCH\n")]), [result("t", "hi\n\nPOST\n\nBATCH")]);
  });

  test("after a text attachments are blocks without a newline", () => {
    // r10_seam_two_pre_post_batch: [TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH].
    const pieces = [att("PRE1"), tr("t1", "one"), att("POST1"), att("PRE2"), tr("t2", "two"), att("POST2"), att("BATCH")];
    assert.deepEqual(userMessage(pieces), [
      result("t1", "one"),
      result("t2", "two"),
      ...["PRE1", "POST1", "PRE2", "POST2", "BATCH"].map(text),
    ]);
  });

  test("attachments move back to the last result before them", () => {
    // r3_post_tool_batch_two_contexts: each call's PostToolUse text is folded
    // into its result, then the batch texts into the last one.
    const pieces = [tr("t1", "one"), att("POST"), tr("t2", "two"), att("POST"), att("B"), att("A")];
    assert.deepEqual(userMessage(pieces), [result("t1", "one\n\nPOST"), result("t2", "two\n\nPOST\n\nB\n\nA")]);
  });

  test("attachments without a result go first", () => {
    // A turn's first message: the prompt, then SessionStart and UserPromptSubmit texts.
    assert.deepEqual(userMessage([msg("prompt"), att("SessionStart"), att("UserPromptSubmit")]), [
      text("SessionStart"),
      text("UserPromptSubmit\n"),
      text("prompt"),
    ]);
  });

  test("a message after a result is a block of its own", () => {
    // r3_permission_denied_retry: the retry reminder is a message, a block of
    // its own after the denied result; after a text it ends that text with
    // "\n", as any message does (read from Claude Code's code).
    assert.deepEqual(userMessage([tr("t", "denied", true), msg("RETRY")]), [result("t", "denied", true), text("RETRY")]);
    assert.deepEqual(userMessage([att("PRE"), tr("t", "denied", true), msg("RETRY")]).slice(1), [
      text("PRE\n"),
      text("RETRY"),
    ]);
  });

  test("folding trims as JavaScript does, and an empty result leaves the text alone", () => {
    assert.deepEqual(userMessage([tr("t", "\ufeff\u3000out\u0085\x1f \n"), att("\u2028X\ufeff")]), [
      result("t", "out\u0085\x1f\n\nX"),
    ]);
    assert.deepEqual(userMessage([tr("t", " \n"), att("X")]), [result("t", "X")]);
  });

  test("a result without is_error is not an error, and the pieces are not changed", () => {
    const list: Json[] = [{ type: "text", text: "R" }];
    const pieces: Piece[] = [
      { kind: "tool_result", tool_use_id: "t", content: "out" },
      att("X"),
      { kind: "tool_result", tool_use_id: "m", content: list },
      att("Y"),
    ];
    const copy = structuredClone(pieces);
    const expected = [
      result("t", "out\n\nX"),
      { type: "tool_result", tool_use_id: "m", content: [{ type: "text", text: "R\n" }, text("Y")] },
    ];
    assert.deepEqual(userMessage(pieces), expected);
    assert.deepEqual(pieces, copy);
    assert.deepEqual(userMessage(new Set(pieces)), expected);
  });

  test("attachments after an MCP result join its list", () => {
    // r12_mcp_list_post_and_batch: each text joins the list as a block, after
    // a newline on the list's last text.
    const blocks: Json[] = [{ type: "text", text: "MCP_RESULT" }];
    const pieces: Piece[] = [{ kind: "tool_result", tool_use_id: "t", content: blocks }, att("POST"), att("BATCH")];
    assert.deepEqual(userMessage(pieces), [
      { type: "tool_result", tool_use_id: "t", content: [text("MCP_RESULT\n"), text("POST\n"), text("BATCH")] },
    ]);
  });

  test("a list takes texts in unless it holds a block kept apart", () => {
    // Read from Claude Code's code: after an image the text joins the list
    // with no newline; a list holding a tool_reference or a search_result
    // takes nothing in.
    const image: Json = { type: "image", source: { type: "base64", media_type: "image/png", data: "" } };
    assert.deepEqual(userMessage([{ kind: "tool_result", tool_use_id: "t", content: [image] }, att("X")]), [
      { type: "tool_result", tool_use_id: "t", content: [image, text("X")] },
    ]);
    for (const kind of ["tool_reference", "search_result"]) {
      const held: Json[] = [{ type: kind }, { type: "text", text: "R" }];
      assert.deepEqual(
        userMessage([{ kind: "tool_result", tool_use_id: "t", content: held }, att("X")]),
        [{ type: "tool_result", tool_use_id: "t", content: held }, text("X")],
        kind,
      );
    }
  });

  test("context entries are attachments, and compaction texts none", () => {
    const entry = (placement: string): ContextEntry => ({ hook: "h", placement, text: "T" });
    for (const placement of ["after_tool_result", "append_to_tool_result", "with_prompt", "first_user_message"]) {
      assert.deepEqual(pieceFromContext(entry(placement)), att("T"));
    }
    for (const placement of ["compaction_prompt", "system_prompt", "after_compaction"]) {
      assert.equal(pieceFromContext(entry(placement)), undefined);
    }
  });
});

test("the retry reminder latch gives after a PermissionDenied hook's retry is a message", async () => {
  const root = await mkdtemp(join(tmpdir(), "latch-client-claude-"));
  try {
    const project = join(root, "project");
    await mkdir(join(project, ".claude"), { recursive: true });
    await mkdir(join(root, "home"));
    await mkdir(join(root, "managed"));
    const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } });
    const handler = { type: "command", command: `printf '%s' '${answer}'` };
    const settings = { hooks: { PermissionDenied: [{ hooks: [handler] }] } };
    await writeFile(join(project, ".claude", "settings.json"), JSON.stringify(settings));
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
    let outcome: Outcome;
    try {
      const tool = { name: "Bash", input: { command: "rm -rf x" }, call_id: "toolu_1" };
      outcome = await latch.fire({ event: "permission_denied", session_id: "s1", tool, reason: "no" });
    } finally {
      await latch.close();
    }
    const [retry, ...rest] = outcome.context ?? [];
    assert.ok(retry !== undefined, JSON.stringify(outcome));
    assert.deepEqual(rest, []);
    assert.equal(retry.placement, "after_tool_result");
    assert.ok(retry.text.startsWith("<system-reminder>\nThe refusal above is not final for this call:"));
    assert.equal(retry.own_message, true);
    assert.deepEqual(pieceFromContext(retry), msg(retry.text));
    // The mark makes the message, not the words.
    assert.deepEqual(pieceFromContext({ hook: "h", placement: "after_tool_result", text: retry.text }), att(retry.text));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
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
type Recorded = Record<string, unknown>;

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

/**
 * The last user message of the case's last request as Claude Code 2.1.332
 * sent it, without its own `<total_tokens>` reminder.
 */
async function recordedMessage(case_: string): Promise<Recorded[]> {
  const file = join(REPO, "recordings", "claude-2.1.332", "messages.json");
  const message = (JSON.parse(await readFile(file, "utf8")) as Record<string, Recorded[]>)[case_];
  assert.ok(message !== undefined, `${case_}: not in messages.json`);
  return withoutTotalTokens(message);
}

/** Whether `text` is the reminder of the tokens left that Claude Code adds to every request. */
const isTotalTokens = (text: unknown): boolean =>
  typeof text === "string" &&
  text.startsWith("<system-reminder>\n<total_tokens>") &&
  text.endsWith("</total_tokens>\n</system-reminder>");

/**
 * Takes off the `<total_tokens>` reminder, an attachment latch has no part
 * in, which Claude Code folds in last: from a text result with the blank
 * line before it, from a list with the newline its folding gave the list's
 * last text, or as a text block.
 */
function withoutTotalTokens(message: Recorded[]): Recorded[] {
  const kept = message.filter((b) => !isTotalTokens(b["text"]));
  for (const block of kept) {
    const content = block["content"];
    if (typeof content === "string") {
      const cut = content.lastIndexOf("\n\n");
      if (cut > 0 && isTotalTokens(content.slice(cut + 2))) block["content"] = content.slice(0, cut);
    } else if (Array.isArray(content) && isTotalTokens((content.at(-1) as Recorded | undefined)?.["text"])) {
      content.pop();
      const last = content.at(-1) as Recorded | undefined;
      const text = last?.["text"];
      if (last !== undefined && typeof text === "string" && text.endsWith("\n")) last["text"] = text.slice(0, -1);
    }
  }
  return kept;
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
  // Two PreToolUse contexts on a denied call follow its result, no newline.
  ["r3_deny_slow_plus_context_fast", ["hi"]],
  // PostToolUse contexts on two calls and two PostToolBatch contexts: each
  // call's text folded into its result, then the batch texts into the last.
  ["r3_post_tool_batch_two_contexts", ["one", "two"]],
  ["r3_post_tool_batch_posttooluse_ctx_only", ["one", "two"]],
  // Nothing but tool results before it: the batch text is folded into the last result.
  ["r3_post_tool_batch_context", ["one", "two"]],
  // After a PreToolUse text nothing is folded: [TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH].
  ["r10_seam_two_pre_post_batch", ["one", "two"]],
  ["r10_seam_two_post_first_only_batch", ["one", "two"]],
  ["r10_seam_single_post_ctx_batch", ["hi"]],
  ["r10_seam_single_pre_ctx_batch", ["hi"]],
  // After an MCP tool's list of blocks the texts join the list.
  ["r12_mcp_list_batch_ctx", [MCP_ANSWER]],
  ["r12_mcp_list_post_and_batch", [MCP_ANSWER]],
  ["r12_bash_string_batch_ctx", ["hi"]],
];

describe("the recorded user messages, rebuilt through latch serve", () => {
  for (const [case_, outputs] of CASES) {
    test(case_, async () => {
      const recorded: unknown[] = await recordedMessage(case_);
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
  assert.deepEqual(messages, [{ role: "user", content: [result("toolu_1", `hi\n\n${post}\n\n${batch}`)] }]);
});
