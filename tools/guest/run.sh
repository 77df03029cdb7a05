#!/bin/bash
# Runs inside the VM as its command: tools/guest/run.sh OUTDIR CMD...
# Runs CMD in the repo, then leaves CMD's exit status and the kernel log in
# OUTDIR (a directory the host can read), so the host decides pass or fail.
out=$1
shift
cd /onenode/repo || exit 1
export ONENODE_BUILD=/onenode/cache/build/user
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Leaks flavor: forget what boot leaked into the report before CMD runs.
	echo clear >/sys/kernel/debug/kmemleak
fi
"$@"
rc=$?
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Two scans: kmemleak reports an object only once it was seen twice.
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak.txt"
fi
dmesg >"$out/dmesg.txt"
echo "$rc" >"$out/rc"
sync
exit "$rc"
