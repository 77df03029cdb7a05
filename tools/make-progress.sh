#!/bin/bash
# make-progress.sh LABEL COUNT-FILE MAKE-ARGS...: run make (kbuild's short
# output, not -s), show a progress line every 30 s instead of thousands of
# "CC" lines, and pass every other line (warnings, errors) through.
#
# COUNT-FILE keeps the number of files the last complete build compiled, so
# that later builds can show a percentage; a first build shows it against
# ONENODE_PROGRESS_TOTAL, the caller's estimate of the total, when set.
set -uo pipefail
label=$1 countfile=$2
shift 2
prev=$(cat "$countfile" 2>/dev/null || echo 0)
of="the last full build's"
if [ "$prev" = 0 ] && [ -n "${ONENODE_PROGRESS_TOTAL:-}" ]; then
	prev=$ONENODE_PROGRESS_TOTAL
	of="about"
fi
n=0 t0=$SECONDS last=$SECONDS
progress() {
	local pct=""
	[ "$prev" -gt 0 ] && pct=" ($((n * 100 / prev < 100 ? n * 100 / prev : 99))% of $of $prev)"
	printf '\033[1m[onenode]\033[0m %s: %d files compiled%s, %d min %02d s\n' \
		"$label" "$n" "$pct" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) >&2
}
while IFS= read -r line; do
	case $line in
	"  CC "* | "  AS "*) n=$((n + 1)) ;;	# "  CC [M]" too
	"  "[A-Z]*" "*) ;;	# kbuild's other quiet-mode steps (LD, AR, GEN, ...)
	"Kernel: "*" is ready"*) ;;
	*) printf '%s\n' "$line" >&2 ;;
	esac
	if [ $((SECONDS - last)) -ge 30 ]; then
		progress
		last=$SECONDS
	fi
done < <(make --no-print-directory "$@" 2>&1; echo "$?" >"$countfile.rc")
rc=$(cat "$countfile.rc" 2>/dev/null || echo 1)
rm -f "$countfile.rc"
if [ "$rc" = 0 ]; then
	[ $((SECONDS - t0)) -ge 30 ] && progress
	# Only a build that compiled much is a useful yardstick.
	[ "$n" -gt "$((prev / 2))" ] && [ "$n" -ge 500 ] && echo "$n" >"$countfile"
fi
exit "$rc"
