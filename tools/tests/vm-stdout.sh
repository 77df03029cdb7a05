#!/bin/bash
# Unit test of ./onenode's VM output plumbing (cmd_vm in tools/lib.sh): what
# a run printed before the guest started must survive when the caller sends
# stdout to a regular file. virtme-ng gives QEMU "-chardev
# file,path=/proc/self/fd/1" and QEMU opens that path with O_TRUNC, which
# empties such a file; cmd_vm must hand the VM a pipe instead. demo and test
# reach the VM only through cmd_vm.
#
# No VM here: in_tree is replaced by a stand-in that does what QEMU does
# with its stdout (reopen it by path with truncation, then write the
# guest's output) and leaves what tools/guest/run.sh leaves.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CACHE=$tmp/cache T_CACHE=/onenode/cache T_REPO=/onenode/repo ONENODE_SRC=$here/../..
# shellcheck source=../lib.sh
. "$here/../lib.sh"

ensure_tree() { :; }
in_tree() {
	# As QEMU: reopen stdout by its /proc path, truncating a regular file.
	exec 3>/proc/self/fd/1
	echo "guest output" >&3
	exec 3>&-
	echo 0 >"$CACHE/work/vm/last/rc"
	: >"$CACHE/work/vm/last/dmesg.txt"
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
exit $fail
