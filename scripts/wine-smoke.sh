#!/bin/sh
# wine-smoke.sh EXE OUTDIR — smoke test of the Windows build under Wine.
#
# 1. The headless CLI: `loupe.exe run` on the embedded demo model, JSON out;
#    it must exit 0 and report generated tokens.
# 2. If xvfb-run is there: the window on the demo model under Xvfb with a
#    short generation and --screenshot (OUTDIR/wine-window.png), then the
#    Get a model… dialog (OUTDIR/wine-getmodel.png). A window that does not
#    come up is reported, not failed: Wine's OpenGL under Xvfb varies.
# Logs: OUTDIR/wine-*.log. Wine keeps its prefix in OUTDIR/wineprefix.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 EXE OUTDIR" >&2
	exit 2
fi
EXE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
WINE=$(command -v wine64 || command -v wine) || { echo "wine-smoke: wine is missing (apt-get install wine64)" >&2; exit 1; }
export WINEPREFIX="$OUT/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$OUT" || exit 1

# Wine 8 (Debian 12) has no bcryptprimitives.dll, which Go's runtime needs
# (ProcessPrng) and Windows 10+ ships: a MinGW-built shim goes into the
# prefix (never into the package). See scripts/wine/bcryptprimitives.c.
[ -d "$WINEPREFIX/drive_c/windows/system32" ] || "$WINE" wineboot -i >wine-boot.log 2>&1
SHIM="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -s "$SHIM" ]; then
	x86_64-w64-mingw32-gcc -shared -O2 -o "$SHIM" "$HERE/wine/bcryptprimitives.c" \
		"$HERE/wine/bcryptprimitives.def" -ladvapi32 || { echo "wine-smoke: cannot build the ProcessPrng shim" >&2; exit 1; }
fi

start=$(date +%s)
timeout 600 "$WINE" "$EXE" run --prompt "First Citizen:" --max-tokens 16 --json >wine-run.json 2>wine-run.log
rc=$?
echo "wine-smoke: loupe.exe run: exit $rc in $(( $(date +%s) - start )) s"
[ $rc -eq 0 ] || { tail -n 20 wine-run.log >&2; exit 1; }
summary=$(python3 -c 'import json; r = json.load(open("wine-run.json")); print(len(r["tokens"]), "tokens,", r["kernels"], "kernels, text:", repr(r["text"]))') ||
	{ echo "wine-smoke: FAIL: wine-run.json is not the run's JSON" >&2; head -c 600 wine-run.json >&2; exit 1; }
echo "wine-smoke: CLI ok: $summary"

command -v xvfb-run >/dev/null 2>&1 || { echo "wine-smoke: no xvfb-run: window not tried"; exit 0; }
for shot in window getmodel; do
	rm -f "wine-$shot.png"
	if [ $shot = window ]; then
		set -- --prompt "First Citizen:" --generate --max-tokens 8 --screenshot "wine-$shot.png" --quit
	else
		set -- --dialog get-model --screenshot "wine-$shot.png" --quit
	fi
	XDG_CONFIG_HOME="$OUT/config" timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" \
		"$WINE" "$EXE" "$@" >"wine-$shot.log" 2>&1
	rc=$?
	if [ -s "wine-$shot.png" ]; then
		echo "wine-smoke: $shot: screenshot wine-$shot.png (exit $rc)"
	else
		echo "wine-smoke: $shot: no screenshot (exit $rc); last lines of wine-$shot.log:"
		tail -n 8 "wine-$shot.log"
	fi
done
