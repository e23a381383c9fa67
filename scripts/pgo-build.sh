#!/usr/bin/env bash
# A profile-guided release build of `latch`: the binary to ship (release
# archives, the latch-bin wheel) when its hot path matters, as it does
# under `latch serve`.
#
#   bash scripts/pgo-build.sh                  # writes target/pgo/latch
#   bash scripts/pgo-build.sh --profile-only   # steps 1-3: the profile alone
#
# 1. builds an instrumented release binary (target/pgo/instrumented);
# 2. runs scripts/pgo-train.py with it: a bundled example of each dialect
#    through `latch serve`, `latch fire` and `latch lint`, and a served
#    claude session with one `true` hook; the binary writes which code ran
#    and how often (target/pgo/profiles);
# 3. merges that into target/pgo/latch.profdata with llvm-profdata;
# 4. builds the release binary again with the profile (target/pgo/optimized)
#    and copies it to target/pgo/latch.
#
# With the profile, the compiler lays out each function's hot blocks
# together and inlines by what ran: a served fire runs with cold caches,
# so its cost follows how much code it touches, and that code now sits on
# fewer cache lines. Measured: benches/README.md, "A profile-guided
# build".
#
# `--profile-only` stops after step 3, for a build that uses the profile
# itself (the wheel: clients/python/bundled/README.md).
#
# Needs python3, jq (the examples' hooks use it) and the llvm-profdata of
# the Rust toolchain's own LLVM (`rustup component add llvm-tools`;
# another LLVM's tool may not read the profile's format), or one named by
# $LLVM_PROFDATA. Takes about 8 minutes on 2 cores: two release builds
# and a 10-second training run.
set -euo pipefail
cd "$(dirname "$0")/.."

profile_only=false
case "${1:-}" in
    "") ;;
    --profile-only) profile_only=true ;;
    *) echo "usage: pgo-build.sh [--profile-only]" >&2; exit 2 ;;
esac
for tool in python3 jq; do
    if ! command -v "$tool" >/dev/null; then
        echo "pgo-build.sh: $tool is needed (the training run)" >&2
        exit 2
    fi
done

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "pgo-build.sh: no llvm-profdata at $profdata" >&2
    echo "  run \`rustup component add llvm-tools\`, or set LLVM_PROFDATA" >&2
    exit 2
fi

out=$PWD/target/pgo
rm -rf "$out/profiles" "$out/latch.profdata" "$out/latch"
mkdir -p "$out/profiles"

# `--target` keeps RUSTFLAGS off build scripts and proc macros, which run
# on this machine and are not part of the binary. CARGO_ENCODED_RUSTFLAGS
# would win over RUSTFLAGS, and drop the profile's flags without a word.
unset CARGO_ENCODED_RUSTFLAGS
build() {
    cargo build --release --locked --quiet --bin latch --target "$host" --target-dir "$1"
}

echo "pgo-build.sh: 1/4 instrumented build" >&2
RUSTFLAGS="-Cprofile-generate=$out/profiles" build "$out/instrumented"

echo "pgo-build.sh: 2/4 training run" >&2
python3 scripts/pgo-train.py "$out/instrumented/$host/release/latch"

echo "pgo-build.sh: 3/4 merging the profile" >&2
if ! compgen -G "$out/profiles/*.profraw" >/dev/null; then
    echo "pgo-build.sh: the training run wrote no profile: was the build instrumented?" >&2
    exit 1
fi
"$profdata" merge -o "$out/latch.profdata" "$out/profiles"
if $profile_only; then
    echo "pgo-build.sh: $out/latch.profdata" >&2
    exit 0
fi

echo "pgo-build.sh: 4/4 optimized build" >&2
RUSTFLAGS="-Cprofile-use=$out/latch.profdata" build "$out/optimized"
cp "$out/optimized/$host/release/latch" "$out/latch"
echo "pgo-build.sh: $out/latch" >&2
