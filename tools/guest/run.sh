#!/bin/bash
# Runs inside the VM as its command: tools/guest/run.sh OUTDIR CMD...
# Runs CMD in the repo, then leaves CMD's exit status and the kernel log in
# OUTDIR (a directory the host can read), so the host decides pass or fail.
out=$1
shift
# The host's boot watchdog (vm_boot in tools/lib.sh) waits for this.
: >"$out/started"
cd /onenode/repo || exit 1
export ONENODE_BUILD=/onenode/cache/build/user
# The project's modules, from the kernel build this VM booted
# (ONENODE_KBUILD, ONENODE_MODULES: set by ./onenode vm). Their KUnit
# modules run their suites at load, so they are loaded only in a KUnit boot.
for m in ${ONENODE_MODULES:-}; do
	case $m in
	*_test.ko) grep -qw 'kunit.enable=1' /proc/cmdline || continue ;;
	esac
	insmod "$ONENODE_KBUILD/$m" || echo "guest: cannot load $m" >&2
done
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Leaks flavor: forget what boot leaked into the report before CMD runs.
	echo clear >/sys/kernel/debug/kmemleak
fi
"$@"
rc=$?
# Unload the project's modules again, last loaded first, so that every
# boot also runs their exit paths (and kmemleak sees what they free). A
# module still in use (a file left open) is reported, not forced.
unload=ok
for m in $(printf '%s\n' ${ONENODE_MODULES:-} | tac); do
	name=$(basename "$m" .ko)
	[ -d "/sys/module/$name" ] || continue
	# SVM device memory is freed by a work item after the last process
	# that used it exits, and drops its hold on the module then: give it
	# a few seconds before calling the module stuck.
	tries=0
	until rmmod "$name" 2>"$out/unload-err.txt"; do
		tries=$((tries + 1))
		if [ $tries -ge 10 ]; then
			unload="rmmod $name failed: $(cat "$out/unload-err.txt")"
			break
		fi
		sleep 1
	done
done
echo "$unload" >"$out/unload.txt"
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
