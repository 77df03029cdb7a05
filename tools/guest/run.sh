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
# Every criu in these VMs (tests, demo, benchmark) stops a task leaving its
# parasite by PTRACE_SYSCALL, not by a hardware breakpoint on the sigreturn:
# under TCG the breakpoint was once missed (CI at eecd009: the task ran on
# past "new_sp=... ip ...", criu waited for its stop forever), the hang
# criu's issues #107 and #162 show on real kernels. CRIU_FAULT=130 is criu's
# own switch for it (FI_NO_BREAKPOINTS, non-fatal; criu sets it for Xen).
export CRIU_FAULT=130
# The project's modules, from the kernel build this VM booted
# (ONENODE_KBUILD, ONENODE_MODULES: set by ./onenode vm). Their KUnit
# modules run their suites at load, so they are loaded only in a KUnit boot.
#
# vcompute and vcompute_edu bind only to the PCI functions they are handed
# (issue 23: an ivshmem function in a VM is usually memory shared with
# another VM). Each is first loaded without its pci_functions parameter:
# OUTDIR/unasked-binding.txt, which ./onenode test requires to be empty,
# records any function it claimed anyway and any PCI alias by which udev
# would load it. Then it is loaded again, handed this VM's test functions:
# ivshmem-plain (1af4:1110) for vcompute, edu (1234:11e8) for vcompute_edu.
# (Shell builtins only in the loops: under TCG every process costs.)
is_pci() {	# is_pci DIR VENDOR DEVICE
	local v d
	read -r v <"$1/vendor" && read -r d <"$1/device" && [ "$v" = "$2" ] && [ "$d" = "$3" ]
}
pci_functions() {	# pci_functions VENDOR DEVICE: their names, comma-separated
	local d list=
	for d in /sys/bus/pci/devices/*; do
		is_pci "$d" "$1" "$2" && list=$list${list:+,}${d##*/}
	done
	echo "$list"
}
unasked() {	# unasked MODULE VENDOR DEVICE
	local d drv
	if modinfo -F alias "$ONENODE_KBUILD/$1" | grep -q '^pci:'; then
		echo "${1##*/} has a PCI alias: udev would load it by ID" >>"$out/unasked-binding.txt"
	fi
	for d in /sys/bus/pci/devices/*; do
		is_pci "$d" "$2" "$3" && [ -e "$d/driver" ] || continue
		drv=$(readlink "$d/driver")
		echo "${d##*/} ($2:$3) bound to ${drv##*/} at load, unasked" >>"$out/unasked-binding.txt"
	done
}
: >"$out/unasked-binding.txt"
for m in ${ONENODE_MODULES:-}; do
	args=
	pci=
	case $m in
	*_test.ko) grep -qw 'kunit.enable=1' /proc/cmdline || continue ;;
	*/vcompute.ko) pci="0x1af4 0x1110" ;;
	# The test VM's edu functions take 64-bit DMA (tools/lib.sh).
	*/vcompute_edu.ko) args=dma_bits=64 pci="0x1234 0x11e8" ;;
	esac
	if [ -n "$pci" ]; then
		# shellcheck disable=SC2086 # no argument or one; VENDOR DEVICE
		n=${m##*/}
		insmod "$ONENODE_KBUILD/$m" $args && unasked "$m" $pci && rmmod "${n%.ko}"
		# shellcheck disable=SC2086
		args="$args pci_functions=$(pci_functions $pci)"
	fi
	# shellcheck disable=SC2086 # no argument, or several
	insmod "$ONENODE_KBUILD/$m" $args || echo "guest: cannot load $m" >&2
done
# The test VM's RDMA NIC: Soft-RoCE (rxe0, built into the test kernels)
# over one end of a veth pair with an IPv4 address, so that its queue pairs
# reach each other through rxe's loopback path; and rdma-core's rxe
# provider with dma-buf memory regions (rdma-core-patches/, built by
# tools/lib.sh into /opt/onenode/rdma), which libibverbs loads first.
if [ -e /opt/onenode/rdma/librxe-rdmav34.so ]; then
	export RDMAV_DRIVERS=/opt/onenode/rdma/librxe
fi
if command -v rdma >/dev/null && ip link add onenode-rdma0 type veth peer name onenode-rdma1 2>/dev/null; then
	ip addr add 192.0.2.1/24 dev onenode-rdma0
	# Jumbo frames, as RoCE deployments use: an RDMA MTU of 4096.
	ip link set onenode-rdma0 mtu 9000
	ip link set onenode-rdma1 mtu 9000 up
	ip link set onenode-rdma0 up
	if rdma link add rxe0 type rxe netdev onenode-rdma0 2>"$out/rdma-err.txt"; then
		# The IPv4 GID appears once the RDMA core has seen the address.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			grep -q '0000:0000:0000:0000:0000:ffff:c000:0201' \
				/sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null && break
			sleep 0.5
		done
	else
		echo "guest: no Soft-RoCE device: $(cat "$out/rdma-err.txt")" >&2
	fi
fi
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
