#!/bin/sh
# e2e-tabs.sh BIN OUTDIR — one screenshot of each inside-view tab under Xvfb.
#
# For each tab (attention, next-token, mlp, embedding, kv-cache,
# logit-lens, sampler) starts BIN on the demo model (or $LOUPE_E2E_MODEL),
# generates 12 tokens, saves the window as OUTDIR/tab-NAME.png and quits.
# Fails if a run errors or times out, or a screenshot is missing, small or
# nearly one colour. Called by e2e.sh; logs: OUTDIR/tab-NAME.log.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 BIN OUTDIR" >&2
	exit 2
fi
BIN=$1
OUT=$2
PROMPT=${LOUPE_E2E_PROMPT:-"My cat is purple. But my friends tell me there is no such thing as a"}
TABS=${LOUPE_E2E_TABS:-"attention next-token mlp embedding kv-cache logit-lens sampler"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

fail() {
	echo "e2e-tabs: FAIL: $*" >&2
	exit 1
}

for tab in $TABS; do
	png="$OUT/tab-$tab.png"
	log="$OUT/tab-$tab.log"
	rm -f "$png"
	set -- --prompt "$PROMPT" --generate --max-tokens 12 --tab "$tab" --screenshot "$png" --quit
	[ -n "${LOUPE_E2E_MODEL:-}" ] && set -- --model "$LOUPE_E2E_MODEL" "$@"
	XDG_CONFIG_HOME="$OUT/config" timeout 180 \
		xvfb-run -a -s "-screen 0 1600x1000x24" "$BIN" "$@" >"$log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { tail -n 20 "$log" >&2; fail "$tab: status $rc"; }
	grep -q "^loupe: generated" "$log" || { tail -n 20 "$log" >&2; fail "$tab: no generation finished"; }
	summary=$("$(dirname "$0")/png-check.sh" "$png") || fail "$tab: $summary"
	echo "e2e: ok: tab $tab: $summary -> $png"
done
