#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
# CRIU's own tests maps00 and maps02 (zdtm, from criu's source: tools/lib.sh
# ensure_zdtm), run with criu_plugin_onenode.so loaded, as CRIU's CI runs
# them with its GPU plugins: a process that has no GPU must dump and restore
# as it does without the plugin, and the plugin must have been loaded.
# Run as root in the test VM; exits 77 without criu, root or zdtm.
# Usage: zdtm-maps.sh PATH-TO-criu_plugin_onenode.so [ZDTM-SOURCE]
set -u

plugin=${1:?plugin}
src=${2:-/onenode/cache/src/criu}
say() { printf '[zdtm-maps] %s\n' "$*"; }

command -v criu >/dev/null || { say "SKIP: criu is not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { say "SKIP: zdtm needs root"; exit 77; }
[ -x "$src/test/zdtm/static/maps00" ] ||
	{ say "SKIP: no zdtm build in $src (./onenode test builds it)"; exit 77; }

# The tests map files of their directory, which the guest's 9p share cannot
# mmap: a copy in the guest's own memory. zdtm points criu at test/plugins
# (CRIU_LIBS_DIR): the plugin goes there.
work=$(mktemp -d /tmp/zdtm.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
cp -a "$src/test" "$work/" || exit 1
cp "$plugin" "$work/test/plugins/" || exit 1
cd "$work/test" || exit 1
rm -rf dump
# -f h: the host flavour (the VM has no user namespaces); --keep-img
# always: the logs below are read from the images directory.
./zdtm.py run -t zdtm/static/maps00 -t zdtm/static/maps02 -f h \
	--criu-bin "$(command -v criu)" --crit-bin "$(command -v crit)" --keep-img always
rc=$?
if [ $rc != 0 ]; then
	for t in maps00 maps02; do
		for f in zdtm/static/$t.out zdtm/static/$t.out.inprogress; do
			[ -f "$f" ] && { say "--- $f"; tail -20 "$f"; }
		done
		find "dump/zdtm/static/$t" -name '*.log' 2>/dev/null | while read -r l; do
			say "--- $l"
			grep -E 'Error|onenode: error' "$l" | tail -10
		done
	done
	say "FAIL: zdtm.py exited $rc"
	exit 1
fi
for t in maps00 maps02; do
	for step in dump restore; do
		log=$(find "dump/zdtm/static/$t" -name "$step.log" 2>/dev/null | head -1)
		[ -n "$log" ] || { say "FAIL: no $step.log of $t"; exit 1; }
		grep -q "onenode: plugin loaded for $step" "$log" ||
			{ say "FAIL: $t's $step.log has no line of the onenode plugin"; exit 1; }
		grep -q "onenode: error" "$log" && { say "FAIL: the plugin logged an error in $t's $step"; exit 1; }
	done
	say "$t: dumped and restored with the onenode plugin loaded"
done
say "ok"
