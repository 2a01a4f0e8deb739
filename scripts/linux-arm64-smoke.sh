#!/bin/sh
# linux-arm64-smoke.sh TARBALL OUTDIR — runs the headless commands of the
# Linux arm64 package (make package-linux-arm64: the window's cgo build)
# under qemu-aarch64-static on the demo model built in. The binary is
# dynamically linked against the arm64 libraries that the package target
# installs (multiarch: /lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu),
# which qemu finds at their own paths. QEMU_LD_PREFIX is set only where
# that loader is missing (the cross toolchain's, /usr/aarch64-linux-gnu):
# with it set beside the multiarch libraries, the program hung at start
# under qemu 7.2 here.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 TARBALL OUTDIR" >&2
	exit 2
fi
TAR=$1
OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
fail() {
	echo "linux-arm64-smoke: FAIL: $*" >&2
	for f in "$OUT/out" "$OUT/err"; do [ -s "$f" ] && { echo "--- $f" >&2; head -n 20 "$f" >&2; }; done
	exit 1
}
command -v qemu-aarch64-static >/dev/null 2>&1 || fail "qemu-aarch64-static is missing (Debian's qemu-user-static)"
tar -xJf "$TAR" -C "$OUT" || fail "cannot unpack $TAR"
BIN=$(find "$OUT" -path '*/bin/loupe' -type f | head -n 1)
[ -n "$BIN" ] || fail "no bin/loupe in $TAR"
file "$BIN" | grep -q "ARM aarch64" || fail "$BIN is not an arm64 program: $(file "$BIN")"
for f in share/applications share/pixmaps; do
	find "$OUT" -path "*/$f/*" | grep -q . || fail "no $f in $TAR"
done
[ -e /lib/ld-linux-aarch64.so.1 ] || export QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
# Its own preferences and caches: the demo model is unpacked under OUT.
export HOME="$OUT/home" XDG_CACHE_HOME="$OUT/cache" XDG_CONFIG_HOME="$OUT/config"
loupe() { timeout -s KILL 600 qemu-aarch64-static "$BIN" "$@" >"$OUT/out" 2>"$OUT/err"; rc=$?; }

loupe help
[ $rc -eq 0 ] && grep -q "^  run " "$OUT/out" && grep -q "window flags" "$OUT/out" || fail "loupe help: status $rc"

loupe run --prompt "My cat is purple. But my friends tell me there is no such thing as a" --max-tokens 4 --json
[ $rc -eq 0 ] || fail "loupe run: status $rc"
grep -q '"text": " purple' "$OUT/out" || fail "loupe run: the demo model did not answer \" purple\""
kernels=$(sed -n 's/.*"kernels": "\([^"]*\)".*/\1/p' "$OUT/out" | head -n 1)

loupe tokenize --text "My cat is purple."
[ $rc -eq 0 ] && grep -q "purple" "$OUT/out" || fail "loupe tokenize: status $rc"

loupe inspect --prompt "My cat is purple." --json
[ $rc -eq 0 ] && grep -q '"attention"' "$OUT/out" || fail "loupe inspect: status $rc"

loupe lesson --json --max-tokens 4
[ $rc -eq 0 ] && grep -q '"two-times"' "$OUT/out" || fail "loupe lesson: status $rc"

# Without a display the window says so in one line and fails.
env -u DISPLAY -u WAYLAND_DISPLAY timeout -s KILL 600 qemu-aarch64-static "$BIN" >"$OUT/out" 2>"$OUT/err"
rc=$?
[ $rc -ne 0 ] && grep -q "no display" "$OUT/err" || fail "the window without a display: status $rc"
echo "linux-arm64-smoke: ok: $BIN under qemu-aarch64-static: help, run on the demo model (« purple», kernels $kernels), tokenize, inspect, lesson; no display refused"
