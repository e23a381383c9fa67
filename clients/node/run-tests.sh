#!/bin/sh
# Installs, builds and tests the Node client against a latch binary.
# LATCH_BIN: the binary under test (default: ../../target/debug/latch from
# this script's directory; a relative value is taken from the current one).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LATCH_BIN=${LATCH_BIN:-$here/../../target/debug/latch}
case $LATCH_BIN in
  /*) ;;
  *) LATCH_BIN=$(pwd)/$LATCH_BIN ;;
esac
if [ ! -x "$LATCH_BIN" ]; then
  echo "run-tests.sh: no latch binary at $LATCH_BIN (build it, or set LATCH_BIN)" >&2
  exit 1
fi
export LATCH_BIN
cd "$here"
npm ci --no-audit --no-fund
npm test

# The package as users get it: packed, installed into a fresh project (no
# dependency to fetch), imported by name, one event fired.
pack=$(mktemp -d "${TMPDIR:-/tmp}/latch-client-pack.XXXXXX")
trap 'rm -rf "$pack"' EXIT
npm pack --silent --pack-destination "$pack" >/dev/null
# It ships the license files, copies of the repository's.
for license in LICENSE-MIT LICENSE-APACHE; do
  cmp "$here/$license" "$here/../../$license"
  tar -xzOf "$pack"/latch-client-*.tgz "package/$license" | cmp - "$here/$license"
done
mkdir "$pack/app"
cd "$pack/app"
printf '{"name":"app","private":true,"type":"module"}\n' > package.json
npm install --no-audit --no-fund --silent "$pack"/latch-client-*.tgz
cat > fire.mjs <<'JS'
import { LatchClient } from "@latch/client";
const latch = await LatchClient.start({ config: { dialects: ["poolside"], project: process.cwd(), home: process.cwd() } });
const outcome = await latch.fire({ event: "stop", session_id: "s1" });
await latch.close();
if (outcome.decision !== "proceed") throw new Error(JSON.stringify(outcome));
console.log("npm pack: the packed client fired an event");
JS
node fire.mjs
# require() finds it too, where Node can require an ES module.
node -e 'if (process.features.require_module) {
  if (typeof require("@latch/client").LatchClient !== "function") throw new Error("require gave no LatchClient");
  console.log("npm pack: the packed client loads with require() too");
}'

# The README's `ts` blocks type-check against the packed package's types.
# Each is a module of its own, after a prelude that declares what it takes
# from the harness around it. test/readme.test.ts runs the first and
# test/claude.test.ts the third.
# What block $1 takes from the harness around it.
prelude() {
  case $1 in
    1) echo 'declare function runTool(name: string, args: Json): Promise<string>;' ;;
    2) cat <<'TS' ;;
import type { LatchClient } from "@latch/client";
declare const latch: LatchClient, signal: AbortSignal;
declare function queueForNextToolResult(session: string, texts: string[]): void;
declare function log(line: string): void;
TS
    3) cat <<'TS' ;;
import type { Outcome as HarnessOutcome } from "@latch/client";
declare const before: HarnessOutcome, after: HarnessOutcome, batch: HarnessOutcome, output: string;
declare const messages: { role: "user"; content: unknown[] }[];
TS
    *) echo "run-tests.sh: the README's ts block $1 has no prelude here; add one" >&2; return 1 ;;
  esac
}
blocks=$(grep -c '^```ts$' "$here/README.md")
files=
for n in $(seq "$blocks"); do
  {
    prelude "$n"
    awk -v want="$n" '/^```ts$/ { n++; on = (n == want); next } /^```$/ { on = 0 } on' "$here/README.md"
  } > "snippet$n.ts"
  files="$files\"snippet$n.ts\","
done
cat > tsconfig.json <<JSON
{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
  "target": "es2022", "skipLibCheck": false, "typeRoots": ["$here/node_modules/@types"], "types": ["node"]},
 "files": [${files%,}]}
JSON
"$here/node_modules/.bin/tsc" -p tsconfig.json
echo "README snippets: all $blocks type-check against the packed client"

# The same with the newest TypeScript major (7, pinned so that a checkout
# that passes today passes tomorrow), and this package's @types/node. TypeScript 6 and later load no
# @types package unasked: this tsconfig names none, and the declarations
# must reference Node's types (and the disposable lib) themselves.
types_node=$(node -p 'require(process.argv[1]).devDependencies["@types/node"]' "$here/package.json")
npm install --no-audit --no-fund --silent --save-dev typescript@7.0.2 "@types/node@$types_node"
cat > tsconfig.latest.json <<JSON
{"compilerOptions": {"strict": true, "noEmit": true, "module": "nodenext", "moduleResolution": "nodenext",
  "target": "es2022", "skipLibCheck": false},
 "files": [${files%,}]}
JSON
./node_modules/.bin/tsc -p tsconfig.latest.json
echo "README snippets: all $blocks type-check with TypeScript $(./node_modules/.bin/tsc --version | sed 's/^Version //') too, without \"types\""
