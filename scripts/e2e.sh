#!/bin/sh
# e2e.sh BIN OUTDIR — smoke test of the real window under Xvfb.
#
# Starts BIN on the demo model (or $LOUPE_E2E_MODEL) with a prompt,
# generates 20 tokens, saves the window as OUTDIR/app.png and quits. Fails
# (non-zero) if the window did not come up, the run errored or timed out,
# or the screenshot is missing or blank. Logs: OUTDIR/stdout.log, stderr.log.
#
# With xdotool installed, a second run clicks a token, right-clicks another
# and quits (Ctrl+Q) in the middle of a long generation: the process must
# end within 5 s with status 0.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 BIN OUTDIR" >&2
	exit 2
fi
BIN=$1
OUT=$2
PROMPT=${LOUPE_E2E_PROMPT:-"My cat is purple. But my friends tell me there is no such thing as a"}
mkdir -p "$OUT"
# Absolute: XDG_CONFIG_HOME must be, or Fyne keeps its preferences in ./fyne.
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/app.png" "$OUT/stdout.log" "$OUT/stderr.log"

fail() {
	echo "e2e: FAIL: $*" >&2
	for f in "$OUT/stdout.log" "$OUT/stderr.log"; do
		[ -s "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}

for tool in xvfb-run timeout; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is missing (make deps installs xvfb, imagemagick)"
done

set -- --prompt "$PROMPT" --generate --max-tokens 20 --screenshot "$OUT/app.png" --quit
[ -n "${LOUPE_E2E_MODEL:-}" ] && set -- --model "$LOUPE_E2E_MODEL" "$@"

# A private preferences folder: the run does not touch the user's recent
# models, and starts like a first launch.
XDG_CONFIG_HOME="$OUT/config" timeout 120 \
	xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN" "$@" >"$OUT/stdout.log" 2>"$OUT/stderr.log"
rc=$?
[ $rc -eq 124 ] && fail "timed out after 120 s"
[ $rc -ne 0 ] && fail "exit status $rc"
grep -q "^loupe: generated" "$OUT/stdout.log" || fail "no generation finished"
[ -s "$OUT/app.png" ] || fail "no screenshot: the window did not come up"

# The app refuses to save a one-colour capture; the image is checked here
# too (scripts/png-check.sh).
summary=$("$(dirname "$0")/png-check.sh" "$OUT/app.png") || fail "app.png: $summary"
summary="screenshot $summary"
echo "e2e: ok: $(grep '^loupe: generated' "$OUT/stdout.log"); $summary -> $OUT/app.png"

# A model that cannot be opened, with --quit: the refusal on stderr, exit
# status 1, and no panic from the toolkit's shutdown.
XDG_CONFIG_HOME="$OUT/config" timeout 60 \
	xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN" --model "$OUT/no-such-model" --quit >"$OUT/bad.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$OUT/bad.log" >&2; fail "a missing model with --quit: exit status $rc, want 1"; }
grep -q "no-such-model" "$OUT/bad.log" || fail "a missing model with --quit: no message naming it"
grep -q "^panic" "$OUT/bad.log" && fail "a missing model with --quit: panic"
echo "e2e: ok: a missing model with --quit is refused with status 1"

# Counterfactuals: rerun with the ten heads that look most at the source
# word switched off, then compare with a variant prompt; each run ends on
# the Compare tab (A | B, Δp, both top-10s, grids A, B and B - A).
VARIANT=${LOUPE_E2E_VARIANT:-"My cat is green. But my friends tell me there is no such thing as a"}
SOURCE=${LOUPE_E2E_SOURCE:-purple}
for exp in ablate variant; do
	set -- --prompt "$PROMPT" --generate --max-tokens 12 --source "$SOURCE" --screenshot "$OUT/compare-$exp.png" --quit
	[ $exp = ablate ] && set -- "$@" --ablate top:10
	[ $exp = variant ] && set -- "$@" --variant "$VARIANT"
	[ -n "${LOUPE_E2E_MODEL:-}" ] && set -- --model "$LOUPE_E2E_MODEL" "$@"
	XDG_CONFIG_HOME="$OUT/config" timeout 300 \
		xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN" "$@" >"$OUT/$exp.log" 2>&1 || { cat "$OUT/$exp.log" >&2; fail "$exp: status $?"; }
	grep -q "^loupe: compare:" "$OUT/$exp.log" || { cat "$OUT/$exp.log" >&2; fail "$exp: no comparison"; }
	[ -s "$OUT/compare-$exp.png" ] || fail "$exp: no screenshot"
	echo "e2e: ok: $exp: $(grep '^loupe: compare:' "$OUT/$exp.log" | sed 's/^loupe: compare: //') -> $OUT/compare-$exp.png"
done

# One screenshot of each inside-view tab after a generation.
"$(dirname "$0")/e2e-tabs.sh" "$BIN" "$OUT" || fail "inside-view tabs"

# Every lesson chapter at 1366 × 768, plain and guessing, on the demo and
# generated shapes: nothing clipped, overlapping or answered too early.
"$(dirname "$0")/e2e-layout.sh" "$BIN" "$OUT/layout" || fail "lesson layout (reports in $OUT/layout)"

command -v xdotool >/dev/null 2>&1 || { echo "e2e: xdotool missing: interaction test skipped"; exit 0; }
# The second run, as a script for xvfb-run: wait for the window, click a
# token, right-click another, quit with Ctrl+Q, and time the exit.
cat >"$OUT/interact.sh" <<'SCRIPT'
#!/bin/sh
"$@" >"$OUT/quit.log" 2>&1 &
app=$!
win=$(xdotool search --sync --onlyvisible --name "Loupe" | head -n 1)
sleep 1
xdotool mousemove 540 50 click 1 sleep 0.3 mousemove 440 50 click 3 sleep 0.3
# exited N: true once the app has gone, waiting up to N seconds.
exited() {
	t0=$(date +%s)
	while kill -0 $app 2>/dev/null; do
		[ $(($(date +%s) - t0)) -ge $1 ] && return 1
		sleep 0.1
	done
}
# A slow machine may still be laying out the first frame when the key
# arrives, and the X server without a window manager gives the keyboard
# to the window under the pointer: focus the window and press again once
# before calling it a failure.
xdotool key ctrl+q
if ! exited 5; then
	echo "no exit 5 s after Ctrl+Q: focusing the window and pressing Ctrl+Q again"
	xdotool mousemove 700 500 windowfocus --sync "$win" key ctrl+q 2>&1
	if ! exited 5; then
		echo "still running 5 s after the second Ctrl+Q; its goroutines follow in quit.log"
		kill -QUIT $app
		sleep 2
		kill -9 $app 2>/dev/null
		exit 1
	fi
fi
wait $app
SCRIPT
set -- --prompt "$PROMPT" --generate --max-tokens 400
[ -n "${LOUPE_E2E_MODEL:-}" ] && set -- --model "$LOUPE_E2E_MODEL" "$@"
OUT="$OUT" XDG_CONFIG_HOME="$OUT/config" timeout 120 \
	xvfb-run -a -s "-screen 0 1600x1000x24" sh "$OUT/interact.sh" "$BIN" "$@" >"$OUT/interact.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$OUT/interact.log" "$OUT/quit.log" >&2; fail "click and quit: status $rc"; }
echo "e2e: ok: clicked two tokens and quit with Ctrl+Q (status 0, within 5 s)"
