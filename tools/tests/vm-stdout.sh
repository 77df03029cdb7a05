#!/bin/bash
# Unit test of ./onenode's VM plumbing (cmd_vm and vm_boot in tools/lib.sh).
#
# Output: what a run printed before the guest started must survive when the
# caller sends stdout to a regular file. virtme-ng gives QEMU "-chardev
# file,path=/proc/self/fd/1" and QEMU opens that path with O_TRUNC, which
# empties such a file; cmd_vm must hand the VM a pipe instead. demo and test
# reach the VM only through cmd_vm.
#
# Watchdogs: a guest that never reaches its command, and one that runs past
# the VM's time limit, are stopped with everything they started (QEMU runs
# in a child of virtme-ng and holds our stdout pipe: left alive, the run
# would never end), and each case is reported as what it is.
#
# No VM here: in_tree is replaced by a stand-in that runs the same timeout(1)
# command line over a fake guest: one that does what QEMU does with its
# stdout (reopen it by path with truncation, then write the guest's output)
# and leaves what tools/guest/run.sh leaves, or one that hangs in a child.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CACHE=$tmp/cache T_CACHE=/onenode/cache T_REPO=/onenode/repo ONENODE_SRC=$here/../..
export ONENODE_VM_BOOT_TIMEOUT=2 ONENODE_VM_TIMEOUT=6
# shellcheck source=../lib.sh
. "$here/../lib.sh"

ensure_tree() { :; }
guest=ok
in_tree() {
	# in_tree /bin/bash -c SCRIPT vm-boot PIDFILE timeout ARGS... vng ...:
	# run cmd_vm's own command line up to vng, and the fake guest for vng.
	local script=$3 pidf=${5/#$T_CACHE/$CACHE/work} out=$CACHE/work/vm/last
	local run=()
	shift 5
	while [ "$1" != vng ]; do run+=("$1"); shift; done
	bash -c "$script" vm-boot "$pidf" "${run[@]}" \
		bash -c "$(declare -f "guest_$guest"); guest_$guest $out $tmp"
}
guest_ok() {
	# As QEMU: reopen stdout by its /proc path, truncating a regular file.
	exec 3>/proc/self/fd/1
	echo "guest output" >&3
	exec 3>&-
	: >"$1/started"
	echo 0 >"$1/rc"
	: >"$1/dmesg.txt"
}
# A QEMU that never boots, or never ends, in a child holding stdout.
guest_boot_hang() {
	sleep 1000 &
	echo $! >>"$2/children"
	wait
}
guest_run_hang() {
	: >"$1/started"
	sleep 1000 &
	echo $! >>"$2/children"
	wait
}
mkdir -p "$CACHE/work/build/debug/arch/x86/boot"
: >"$CACHE/work/build/debug/arch/x86/boot/bzImage"

fail=0
{ echo "host output before the VM"; cmd_vm -- true; } >"$tmp/out" 2>/dev/null
if grep -qx "host output before the VM" "$tmp/out" && grep -qx "guest output" "$tmp/out"; then
	echo "ok host output before the VM survives a redirect to a file"
else
	echo "not ok host output lost; the file holds:"; sed 's/^/  /' "$tmp/out"; fail=1
fi

for guest in boot_hang run_hang; do
	case $guest in
	boot_hang) want="did not reach its command within 2s, twice" runs=2 ;;
	run_hang) want="ran past 6s" runs=1 ;;
	esac
	rm -f "$tmp/children"
	rc=0
	cmd_vm -- true >/dev/null 2>"$tmp/err" || rc=$?
	alive=0
	for pid in $(cat "$tmp/children" 2>/dev/null); do
		# A zombie is dead (its reaper may be slow), a sleeping child is not.
		case $(ps -o stat= -p "$pid" 2>/dev/null) in
		'' | Z*) ;;
		*) alive=1; kill "$pid" ;;
		esac
	done
	boots=$(wc -l <"$tmp/children" 2>/dev/null || echo 0)
	if [ "$rc" != 0 ] && grep -q "$want" "$tmp/err" && [ $alive = 0 ] && [ "$boots" = "$runs" ]; then
		echo "ok a guest that hangs ($guest) is stopped with its children and reported"
	else
		echo "not ok $guest: rc $rc, boots $boots (want $runs), children alive: $alive; stderr:"
		sed 's/^/  /' "$tmp/err"; fail=1
	fi
done
exit $fail
