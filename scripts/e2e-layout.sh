#!/bin/sh
# e2e-layout.sh BIN OUTDIR — every lesson chapter at 1366 × 768 under Xvfb,
# on the demo model and generated ones of each shape Loupe opens: 2 layers
# (tiny), 28 layers × 12 heads (narrow-1.5b: the tallest attention grid),
# a mixture of experts (tiny-qwen3moe: an Experts tab and chapter) and a
# hybrid (tiny-qwen35: a DeltaNet tab). Each chapter is run plain, and
# with --guess where it asks the class a question (elsewhere --guess draws
# what plain does); in projector mode too on the demo, narrow-1.5b and
# tiny-qwen3moe (the longest cards and numbers). Each run writes
# a screenshot and a --layout-report that scripts/layout-check.py reads:
# it fails on a visible clipped or overlapping text, a window off the
# screen, or an answer visible while the class guesses.
# LOUPE_LAYOUT_SHAPES overrides the generated shapes ("" runs the demo
# only); LOUPE_LAYOUT_SCREEN the screen ("1366x768");
# LOUPE_LAYOUT_FRENCH the models also checked in French, --lang fr
# ("demo" by default: French strings run ~20 % longer; "" for none,
# "demo tiny" for both); LOUPE_LAYOUT_PROJECTOR the models also checked
# in projector mode. FYNE_THEME=light draws the
# window light: it follows the system's theme where View › Theme was not
# chosen, and the runs keep their preferences in OUTDIR/config.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 BIN OUTDIR" >&2
	exit 2
fi
BIN=$1
OUT=$2
HERE=$(dirname "$0")
SCREEN=${LOUPE_LAYOUT_SCREEN:-1366x768}
SHAPES=${LOUPE_LAYOUT_SHAPES-tiny narrow-1.5b tiny-qwen3moe tiny-qwen35}
PROJECTOR=${LOUPE_LAYOUT_PROJECTOR-demo narrow-1.5b tiny-qwen3moe}
FRENCH=${LOUPE_LAYOUT_FRENCH-demo}
PROMPT="My cat is purple. But my friends tell me there is no such thing as a"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# chapters M: the ids of model M's lesson (a mixture-of-experts model's
# has one more), "?" after those that ask the class a question.
chapters() {
	if [ "$1" = demo ]; then set --; else set -- --model "$OUT/model-$1"; fi
	"$BIN" lesson --json --max-tokens 8 --prompt "$PROMPT" "$@" |
		python3 -c 'import json,sys; print(" ".join(c["id"] + ("?" if c.get("question") else "") for c in json.load(sys.stdin)["chapters"]))'
}
models=demo
for s in $SHAPES; do
	rm -rf "$OUT/model-$s" # gen-model does not overwrite a model of an earlier run
	"$BIN" gen-model --shape "$s" --out "$OUT/model-$s" >/dev/null || { echo "e2e-layout: FAIL: gen-model $s" >&2; exit 1; }
	models="$models $s"
done
fails=0
for m in $models; do
	ids=$(chapters $m) || { echo "e2e-layout: FAIL: loupe lesson --json on $m" >&2; exit 1; }
	langs=en
	case " $FRENCH " in *" $m "*) langs="en fr" ;; esac
	for lang in $langs; do
	for c in $ids; do
		modes=plain
		# --guess on a chapter without a question draws it as plain does
		# (with the box ticked): it is run on those that ask one.
		case $c in *"?") modes="plain guess"; c=${c%"?"} ;; esac
		case " $PROJECTOR " in *" $m "*) [ $lang = en ] && modes="$modes projector" ;; esac
		for mode in $modes; do
			name="$m-$c-$mode"
			[ $lang = fr ] && name="$name-fr"
			set -- --lang "$lang" --lesson-chapter "$c" --max-tokens 8 --screenshot "$OUT/$name.png" --layout-report "$OUT/$name.json" --quit
			[ $mode = guess ] && set -- --guess "$@"
			[ $mode = projector ] && set -- --projector "$@"
			[ $m != demo ] && set -- --model "$OUT/model-$m" "$@"
			XDG_CONFIG_HOME="$OUT/config" timeout 120 xvfb-run -a -s "-screen 0 ${SCREEN}x24" \
				"$BIN" "$@" >"$OUT/$name.log" 2>&1
			if [ $? -ne 0 ] || [ ! -s "$OUT/$name.json" ]; then
				echo "e2e-layout: FAIL: $name: no report (see $OUT/$name.log)"
				fails=$((fails + 1))
				continue
			fi
			python3 "$HERE/layout-check.py" "$OUT/$name.json" || fails=$((fails + 1))
		done
	done
	done
done
if [ $fails -gt 0 ]; then
	echo "e2e-layout: FAIL: $fails of the reports under $OUT show a fault" >&2
	exit 1
fi
echo "e2e-layout: ok: every chapter on $models (in French too: ${FRENCH:-none}) at $SCREEN -> $OUT"
