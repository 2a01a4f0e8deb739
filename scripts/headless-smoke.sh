#!/bin/sh
# headless-smoke.sh BIN — smoke test of a loupe built without cgo
# (CGO_ENABLED=0 go build .): help lists the commands, run writes on the
# demo model built in, and the window is refused in one line on stderr with
# a non-zero status. $LOUPE_RUNNER runs BIN (e.g. qemu-aarch64-static for
# an arm64 binary on x86-64).
set -u
if [ $# -ne 1 ]; then
	echo "usage: $0 BIN" >&2
	exit 2
fi
BIN=$1
RUNNER=${LOUPE_RUNNER:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
	echo "headless-smoke: FAIL: $*" >&2
	for f in "$TMP"/out "$TMP"/err; do [ -s "$f" ] && { echo "--- $(basename "$f")" >&2; head -n 20 "$f" >&2; }; done
	exit 1
}
# loupe ARGS…: runs BIN, stdout to $TMP/out, stderr to $TMP/err; sets rc.
loupe() { $RUNNER "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

loupe help
[ $rc -eq 0 ] || fail "loupe help: status $rc"
for c in run bench gen-model inspect lesson membw tokenize; do
	grep -q "^  $c " "$TMP/out" || fail "loupe help does not list $c"
done
grep -q "has no window" "$TMP/out" || fail "loupe help does not say this build has no window"

loupe run --help
[ $rc -eq 0 ] && grep -q "^usage: loupe run" "$TMP/out" && grep -q -- "-max-tokens" "$TMP/out" || fail "loupe run --help: status $rc"

# The demo model continues the article's sentence with " purple"
# (assets/demo.go), greedy.
loupe run --prompt "My cat is purple. But my friends tell me there is no such thing as a" --max-tokens 4 --json
[ $rc -eq 0 ] || fail "loupe run: status $rc"
grep -q '"text": " purple' "$TMP/out" || fail "loupe run: the demo model did not answer \" purple\""
kernels=$(sed -n 's/.*"kernels": "\([^"]*\)".*/\1/p' "$TMP/out" | head -n 1)

for args in "" "--model somewhere" "--lesson --projector"; do
	# shellcheck disable=SC2086 # the words of args are separate flags
	loupe $args
	[ $rc -ne 0 ] || fail "loupe $args: status 0; the window must be refused"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "has no window" "$TMP/err" && grep -q "run" "$TMP/err" ||
		fail "loupe $args: want one line on stderr saying this build has no window and listing the commands"
	[ -s "$TMP/out" ] && fail "loupe $args: wrote on stdout"
done
echo "headless-smoke: ok: $BIN: help, run --help, run on the demo model (« purple», kernels $kernels), the window refused in one line"
