#!/bin/sh
# samecode.sh OLD.s NEW.s: whether two amd64 assembly files assemble to the
# same machine code, function by function (the TEXT symbols in order, the
# bytes of every instruction). Comments, layout, macros against their
# expansion, register #defines and label names do not count, so a
# generator that rewrites a kernel's text can be shown to leave the kernel
# itself unchanged. Prints the differing lines and exits 1 when they differ.
#
#   git show HEAD~1:kernels/gemm_amd64.s > /tmp/old.s
#   tools/quantasm/samecode.sh /tmp/old.s kernels/gemm_amd64.s
set -eu
[ $# -eq 2 ] || { echo "usage: $0 OLD.s NEW.s" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
inc="$(go env GOROOT)/pkg/include"
# code FILE.s OUT: one line a function name, then one a instruction's hex.
code() {
	GOARCH=amd64 go tool asm -I "$inc" -p kernels -o "$dir/o" "$1"
	go tool objdump "$dir/o" | awk -F'\t' '/^TEXT/ { print $1; next } NF > 0 { print $5 }' | sed 's/(SB).*$//' >"$2"
}
code "$1" "$dir/old"
code "$2" "$dir/new"
if diff "$dir/old" "$dir/new"; then
	echo "same machine code: $(grep -c '^TEXT' "$dir/new") functions, $(grep -vc '^TEXT' "$dir/new") instructions"
else
	exit 1
fi
