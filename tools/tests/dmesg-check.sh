#!/bin/bash
# Unit test of ./onenode's kernel-log check (check_dmesg in tools/lib.sh):
# a clean boot log of the debug kernel passes, and each kind of splat that
# must fail a VM run is reported, one line each.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# lib.sh reads these; none of the functions used here touches them.
export CACHE=/nonexistent T_CACHE=/nonexistent T_REPO=/nonexistent ONENODE_SRC=$here/../..
# shellcheck source=../lib.sh
. "$here/../lib.sh"
fail=0
if out=$(check_dmesg "$here/dmesg-clean.txt"); then
	echo "ok clean log passes"
else
	echo "not ok clean log passes: $out"; fail=1
fi
want=$(grep -c . "$here/dmesg-splats.txt")
want=$((want - 1)) # the "cut here" line is not a splat of its own
if out=$(check_dmesg "$here/dmesg-splats.txt"); then
	echo "not ok splats are reported (none found)"; fail=1
elif [ "$(printf '%s\n' "$out" | grep -c .)" -ne "$want" ]; then
	echo "not ok splats are reported: want $want lines, got:"; printf '%s\n' "$out"; fail=1
else
	echo "ok splats are reported ($want)"
fi
exit $fail
