#!/bin/sh
# window-bench.sh BIN MODEL OUTDIR [ROUNDS] — the window's speed beside the engine's.
#
# Runs `BIN bench` (one timed run after its warm-up) and the window under
# Xvfb (--generate --quit --timing-json) on the same model, prompt and
# token count, ROUNDS times (default 3), interleaved one by one, and prints
# each pair's prefill and decode rates, the medians and their ratio. The
# prompt is $LOUPE_BENCH_PROMPT_FILE (default: the 17-token purple-cat
# sentence), tokens written $LOUPE_BENCH_TOKENS (default 50). Beside the rates
# it prints the cores each process kept busy: the window's excess over
# bench is its own drawing, which a busy machine takes from the engine. A benchmark:
# it prints figures and fails only when a run fails, never on a rate.
set -u
if [ $# -lt 3 ]; then
	echo "usage: $0 BIN MODEL OUTDIR [ROUNDS]" >&2
	exit 2
fi
BIN=$1
MODEL=$2
OUT=$3
ROUNDS=${4:-3}
TOKENS=${LOUPE_BENCH_TOKENS:-50}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -n "${LOUPE_BENCH_PROMPT_FILE:-}" ]; then
	PROMPT=$(cat "$LOUPE_BENCH_PROMPT_FILE") || exit 1
else
	PROMPT="My cat is purple. But my friends tell me there is no such thing as a"
fi
command -v xvfb-run >/dev/null 2>&1 || { echo "window-bench: xvfb-run is missing (make deps)" >&2; exit 1; }

# rates FILE.json: "prefill-tok/s decode-tok/s cores-busy" from bench --json or
# the window's --timing-json (both: prefill's tokens_per_second first, then
# decode's; cpu_seconds and wall_seconds of the whole run).
rates() {
	tr -d ',' <"$1" | awk '$1 == "\"tokens_per_second\":" { r[++n] = $2 }
		$1 == "\"cpu_seconds\":" && !c { c = $2 } $1 == "\"wall_seconds\":" && !w { w = $2 }
		END { if (n >= 2 && w > 0) print r[1], r[2], c / w }'
}
# pool FILE.json: "chunks-the-caller-took parks caller-wait-ms", each per
# decode token, from the workers' record of decode (pool: taken,
# worker_parks + caller_parks, caller_wait in ns): what a busy machine or
# the window's drawing costs the engine's two sides at their barriers.
pool() {
	tr -d ',' <"$1" | awk '$1 == "\"decode\":" { d = 1 } d && $1 == "\"tokens\":" && !n { n = $2 }
		$1 == "\"taken\":" { t = $2 } $1 == "\"worker_parks\":" { p += $2 } $1 == "\"caller_parks\":" { p += $2 }
		$1 == "\"caller_wait\":" { w = $2 }
		END { if (n > 0) printf "%.1f %.2f %.2f\n", t / n, p / n, w / n / 1e6; else print "- - -" }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$OUT/pairs.txt"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	"$BIN" bench --model "$MODEL" --prompt "$PROMPT" --max-tokens "$TOKENS" --repeat 1 --beside=false --json \
		>"$OUT/cli-$i.json" 2>"$OUT/cli-$i.log" || { cat "$OUT/cli-$i.log" >&2; exit 1; }
	XDG_CONFIG_HOME="$OUT/config" timeout 600 xvfb-run -a -s "-screen 0 1600x1000x24" \
		"$BIN" --model "$MODEL" --prompt "$PROMPT" --generate --max-tokens "$TOKENS" \
		--timing-json "$OUT/window-$i.json" --quit >"$OUT/window-$i.txt" 2>"$OUT/window-$i.log" ||
		{ cat "$OUT/window-$i.log" >&2; exit 1; }
	set -- $(rates "$OUT/cli-$i.json") $(rates "$OUT/window-$i.json")
	[ $# -eq 6 ] || { echo "window-bench: no rates in round $i (see $OUT)" >&2; exit 1; }
	echo "$1 $2 $4 $5 $3 $6" >>"$OUT/pairs.txt"
	printf 'round %d: prefill  bench %8.1f  window %8.1f tok/s   decode  bench %6.2f  window %6.2f tok/s   cores busy  bench %.2f  window %.2f\n' \
		"$i" "$1" "$4" "$2" "$5" "$3" "$6"
	set -- $(pool "$OUT/cli-$i.json") $(pool "$OUT/window-$i.json")
	printf '         decode, a token: chunks the caller took beyond its share  bench %s  window %s   parks  bench %s  window %s   caller waited  bench %s  window %s ms\n' \
		"$1" "$4" "$2" "$5" "$3" "$6"
	i=$((i + 1))
done
cp=$(awk '{ print $1 }' "$OUT/pairs.txt" | median)
cd=$(awk '{ print $2 }' "$OUT/pairs.txt" | median)
wp=$(awk '{ print $3 }' "$OUT/pairs.txt" | median)
wd=$(awk '{ print $4 }' "$OUT/pairs.txt" | median)
cb=$(awk '{ print $5 }' "$OUT/pairs.txt" | median)
wb=$(awk '{ print $6 }' "$OUT/pairs.txt" | median)
awk -v cp="$cp" -v cd="$cd" -v wp="$wp" -v wd="$wd" -v cb="$cb" -v wb="$wb" -v n="$ROUNDS" 'BEGIN {
	printf "median of %d: prefill  bench %8.1f  window %8.1f tok/s (window/bench %.2f)   decode  bench %6.2f  window %6.2f tok/s (window/bench %.2f)\n", n, cp, wp, wp / cp, cd, wd, wd / cd
	printf "cores busy during the run: bench %.2f, window %.2f (the window itself: %+.2f)\n", cb, wb, wb - cb
	ok = wp >= 0.9 * cp && wd >= 0.9 * cd
	printf "window-bench: the window is %s 10 %% of the engine\n", ok ? "within" : "NOT within"
}'
