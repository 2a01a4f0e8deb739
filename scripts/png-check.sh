#!/bin/sh
# png-check.sh PNG — is this a real window capture? Prints "WxH, N colours"
# and exits 0, or says what is wrong and exits 1. A real window has text,
# chips and a heatmap: at least 800×500, a grey spread above 0.02 and 50
# colours. Without ImageMagick it only checks that the file is not empty.
[ -s "$1" ] || { echo "no screenshot"; exit 1; }
command -v convert >/dev/null 2>&1 || { echo "not checked (no ImageMagick)"; exit 0; }
size=$(convert "$1" -format "%w %h" info:) || { echo "not an image"; exit 1; }
spread=$(convert "$1" -colorspace Gray -format "%[fx:standard_deviation]" info:)
colors=$(convert "$1" -format "%k" info:)
set -- $size
[ "$1" -ge 800 ] && [ "$2" -ge 500 ] || { echo "screenshot is only ${1}x${2}"; exit 1; }
awk -v s="$spread" 'BEGIN { exit !(s > 0.02) }' || { echo "screenshot is blank (grey spread $spread)"; exit 1; }
[ "$colors" -ge 50 ] || { echo "screenshot has only $colors colours"; exit 1; }
echo "${1}x${2}, $colors colours"
