#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright 2026 The onenode authors
#
# CRIU dump and restore of a task holding the vcompute render node, through
# criu_plugin_onenode.so. Run as root where the vcompute node exists (the
# test VM); exits 77 (skip) without criu, root or the node.
#
# Usage: criu-smoke.sh SCENARIO PATH-TO-criu-caps-holder PATH-TO-criu_plugin_onenode.so
#
# Scenarios:
#   roundtrip         dump, restore, the restored task finds the same DEVICE
#                     report through the same fd; the plugin logged in both logs
#   restore-mismatch  the image says the device had another DEVICE report
#                     (twice the VRAM): restore fails
#                     with the plugin's reason and leaves no task behind;
#                     the untouched image then restores
#   restore-missing   the image names a node and driver that do not exist:
#                     same expectations
#   dump-fails        the plugin fails the dump (ONENODE_CRIU_FAULT=dump):
#                     criu fails, the task keeps running and still passes
#   dump-refuses-objects
#                     the task holds a buffer it exported (keeping the
#                     dma-buf fd), a GPU VM, a user queue and a buffer
#                     imported from vgem; the kernel cannot save an
#                     imported buffer: the plugin pauses the file
#                     (the queue suspended), the dump fails with the kernel's
#                     counts, the plugin resumes the file, and the task keeps
#                     running with all three, its queue no longer suspended,
#                     and still owns its file (criu's calls did not take it
#                     over)
#   objects           the task holds buffers (one of 9 MiB, kept mapped), a
#                     gap in its handles, a VM and mappings, and a user queue
#                     in a second VM that is inside a packet (a WAIT_MEM after
#                     a LIST_SUM walk): dump, restore, the restored task finds
#                     the same bytes through its kept mapping and its handles,
#                     the same VM ids and mappings; its queue finishes the
#                     walk with the right sum, passes the wait once the task
#                     sets the flag, and runs a packet the task writes through
#                     its kept ring and doorbell mappings
#   objects-other-device
#                     the same dump from the first vcompute instance, restored
#                     onto a second one made through configfs (another render
#                     minor, another device id, the same DEVICE report
#                     otherwise): the restored task checks the same as in
#                     'objects', and that its fd is now the other node
#   objects-shared    the task shares a buffer with its child: it exports
#                     it (keeping the dma-buf fd) and forks, the child
#                     imports the dma-buf into a render-node file of its
#                     own and maps it: dump both, restore: one buffer again
#                     (the task's writes show in the child's mapping), the
#                     kept dma-buf fd imports as each file's own handle
#   dump-refuses-shared
#                     the same buffer shared with a process outside the tree
#                     criu dumps (an orphaned grandchild): the plugin refuses,
#                     naming the buffer and its holders; the task keeps
#                     running with its buffer and dma-buf fd. Then again with
#                     a grandchild that keeps only the dma-buf fd (no render
#                     node), one that keeps only a mapping of the dma-buf (no
#                     fd), and one that keeps only the task's own render-node
#                     fd (the same open file): refused, naming that process
#                     and how it holds the buffer
#   objects-damaged   the same dump; a bit flipped in the objects image, then
#                     the image cut short: each restore fails with the
#                     plugin's reason and leaves neither task nor device
#                     memory behind; the intact image then restores
set -u

scenario=${1:?scenario}
# Absolute paths: meson passes them relative to the build directory.
holder=$(readlink -f "${2:?path to criu-caps-holder}")
plugin=$(readlink -f "${3:?path to criu_plugin_onenode.so}")
libdir=$(dirname "$plugin")

say() { printf '[criu-smoke %s] %s\n' "$scenario" "$*"; }
fail() {
	say "FAIL: $*"
	for f in "$img/dump.log" "$img/restore.log" "$work/holder.out"; do
		[ -f "$f" ] || continue
		echo "---- $f (onenode and error lines)"
		grep -E 'onenode|Error|error' "$f" | tail -40
	done
	cleanup
	exit 1
}
skip() { say "SKIP: $*"; exit 77; }

pid=
instance=
cleanup() {
	# Only the task this script started (or restored) is ever signalled.
	if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] &&
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$work/ready"; then
		kill -KILL "$pid" 2>/dev/null
	fi
	if [ -n "$instance" ]; then
		for _ in $(seq 50); do
			alive "$pid" || break
			sleep 0.1
		done
		echo 0 >"/sys/kernel/config/vcompute/$instance/enabled" 2>/dev/null
		rmdir "/sys/kernel/config/vcompute/$instance" 2>/dev/null
	fi
	[ -n "$hang_saved" ] && echo "$hang_saved" >"$hang_param"
	# Children of the task (a sharer) carry the same command line.
	pkill -KILL -f -- "$work/ready" 2>/dev/null
	rm -rf "$work"
}

# The saving holder's queue sits in a WAIT_MEM across the checkpoint for as
# long as the dump and restore take; hang detection would reset it after
# hang_timeout_ms of no progress, as it should a real stuck queue. Off for
# those scenarios, back on at the end.
hang_param=/sys/module/drm_compute_helper/parameters/hang_timeout_ms
hang_saved=
hang_detection_off() {
	hang_saved=$(cat "$hang_param") || fail "no $hang_param"
	echo 0 >"$hang_param" || fail "cannot turn hang detection off"
}

command -v criu >/dev/null || skip "criu is not installed"
[ "$(id -u)" = 0 ] || skip "criu dump needs root"
"$holder" --probe
case $? in
0) ;;
77) skip "no vcompute render node" ;;
*) echo "criu-caps-holder --probe failed"; exit 1 ;;
esac
[ -f "$plugin" ] || { echo "no plugin at $plugin"; exit 1; }

work=$(mktemp -d /tmp/onenode-criu-XXXXXX)
img=$work/img
mkdir -p "$img"
trap cleanup EXIT

# Is it our task (alive and not a zombie)?
alive() {
	local state
	[ -r "/proc/$1/stat" ] || return 1
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ] &&
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "$work/ready"
}

start_holder() {
	rm -f "$work/ready" "$work/go" "$work/result"
	"$holder" "$work/ready" "$work/go" "$work/result" </dev/null >"$work/holder.out" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		[ -f "$work/ready" ] && break
		alive "$pid" || break
		sleep 0.1
	done
	[ -f "$work/ready" ] || fail "the holder never got ready: $(cat "$work/holder.out" "$work/result" 2>/dev/null)"
	say "holder: $(cat "$work/ready")"
}

# bounded WHAT CMD...: CMD, stopped after criu_limit seconds. A CMD that
# hangs fails the scenario with what every process of the test and of criu
# waits in (its kernel stack) and the end of criu's log, instead of running
# into meson's timeout with nothing to show.
criu_limit=240
bounded() {
	local what=$1 cpid ticks=0 p
	shift
	"$@" &
	cpid=$!
	while kill -0 "$cpid" 2>/dev/null; do
		if [ "$ticks" -ge $((criu_limit * 10)) ]; then
			say "$what still runs after ${criu_limit}s; the processes and their kernel stacks:"
			ps -eo pid,ppid,stat,wchan:32,args | grep -E 'criu|onenode' | grep -v grep
			for p in $(pgrep -f -- "criu|$work/ready"); do
				echo "---- $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
				cat "/proc/$p/stack" 2>/dev/null
			done
			for f in "$img/dump.log" "$img/restore.log"; do
				[ -f "$f" ] && { echo "---- the end of $f"; tail -15 "$f"; }
			done
			pkill -KILL -f -- "criu (dump|restore) .*$img" 2>/dev/null
			wait "$cpid" 2>/dev/null
			fail "$what hung"
		fi
		sleep 0.1
		ticks=$((ticks + 1))
	done
	wait "$cpid"
}

dump() {
	rm -f "$img"/*
	bounded "criu dump" criu dump -t "$pid" --shell-job -D "$img" --libdir "$libdir" -v4 \
		-o dump.log
}

restore() {
	rm -f "$work/restored.pid" "$img/restore.log"
	bounded "criu restore" criu restore -D "$img" --shell-job -d --libdir "$libdir" -v4 \
		-o restore.log --pidfile "$work/restored.pid"
}

# The dumped task is gone: criu killed it (SIGKILL, bash reports "Killed");
# reap it, it is our child.
reap() {
	wait "$pid" 2>/dev/null
	say "dumped task $pid was killed by criu after the dump (expected); wait status $?"
	alive "$pid" && fail "task $pid still runs after a successful dump"
	return 0
}

# Wake the task and check its verdict.
verdict() {
	local want=$1
	kill -USR1 "$pid" || fail "cannot signal task $pid"
	for _ in $(seq 300); do
		[ -f "$work/result" ] && break
		sleep 0.1
	done
	[ -f "$work/result" ] || fail "task $pid wrote no verdict"
	say "verdict: $(cat "$work/result")"
	grep -q "^$want" "$work/result" || fail "expected $want"
}

# refused_outside MODE WHAT LOG: a holder sharing with a process outside the
# dump (CRIU_HOLDER_OBJECTS=MODE): the dump must fail with LOG in its log,
# the task live and whole afterwards.
refused_outside() {
	CRIU_HOLDER_OBJECTS=$1 start_holder
	if dump; then
		fail "criu dump succeeded although a process outside the dump $2"
	fi
	need_log "$img/dump.log" "$3"
	alive "$pid" || fail "task $pid died with the failed dump"
	say "dump refused: $(grep -F "onenode: error" "$img/dump.log" | head -1 | sed 's/.*onenode: //')"
	verdict PASS
	wait "$pid" || fail "the task exited with status $?"
}

# instance_up NAME MIB: a vcompute instance made through configfs with MIB
# of device memory; sets instance (removed at cleanup) and instance_node.
instance_up() {
	local dir=/sys/kernel/config/vcompute/$1 n link
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[ -d /sys/kernel/config/vcompute ] || return 1
	mkdir -p "$dir" || return 1
	instance=$1
	echo "$2" >"$dir/vram_mib" && echo 1 >"$dir/enabled" || return 1
	for n in /sys/class/drm/renderD*; do
		link=$(readlink "$n/device" 2>/dev/null) || continue
		[ "${link##*/}" = "vcompute.$1" ] && { instance_node=/dev/dri/${n##*/}; return 0; }
	done
	return 1
}

# vcompute's device memory in use and own pages, over every instance.
device_memory() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	cat /sys/kernel/debug/dri/*/vcompute_memory 2>/dev/null | grep -E '^(vram_used|own_pages)' | tr '\n' ' '
}

need_log() {
	grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks \"$2\""
}

check_dump_log() {
	need_log "$img/dump.log" "onenode: plugin loaded for dump"
	need_log "$img/dump.log" "onenode: dumped file 0x"
	need_log "$img/dump.log" "onenode: dump finished (criu status 0): 1 render-node fds seen, 1 files saved"
	image=$(ls "$img"/onenode-*.img 2>/dev/null | head -1)
	[ -n "$image" ] || fail "the plugin wrote no image"
	[ "$(head -1 "$image")" = "onenode-criu-image 4" ] || fail "bad image header in $image"
	grep -q '^device\.vram_size [1-9]' "$image" || fail "image lacks the DEVICE report"
	grep -qx "driver vcompute" "$image" || fail "image lacks the driver"
}

# A restore that must fail, with the plugin's reason, and leave nothing.
restore_must_fail() {
	local reason=$1
	if restore; then
		pid=$(cat "$work/restored.pid" 2>/dev/null)
		fail "restore succeeded on an image that does not match"
	fi
	need_log "$img/restore.log" "onenode: plugin loaded for restore"
	need_log "$img/restore.log" "$reason"
	alive "$pid" && fail "a half-restored task $pid is left"
	for p in $(pgrep -f -- "$work/ready"); do
		fail "a task of this test is left: $p"
	done
	say "restore refused: $(grep -F "onenode: error" "$img/restore.log" | head -1 | sed 's/.*onenode: //')"
}

restore_must_succeed() {
	local want_pid=$pid
	restore || fail "criu restore failed (exit $?)"
	need_log "$img/restore.log" "onenode: plugin loaded for restore"
	need_log "$img/restore.log" "onenode: restored file 0x"
	pid=$(cat "$work/restored.pid")
	[ "$pid" = "$want_pid" ] || fail "restored pid $pid, dumped $want_pid"
	alive "$pid" || fail "restored task $pid is not running"
}

case $scenario in
roundtrip)
	say "criu check:"
	criu check 2>&1 | sed 's/^/  | /'
	start_holder
	dump || fail "criu dump failed"
	reap
	check_dump_log
	say "image $(basename "$image"):"
	sed 's/^/  | /' "$image"
	restore_must_succeed
	verdict PASS
	;;
restore-mismatch | restore-missing)
	start_holder
	dump || fail "criu dump failed"
	reap
	check_dump_log
	cp "$image" "$work/image.orig"
	if [ "$scenario" = restore-mismatch ]; then
		awk '$1 == "device.vram_size" { $2 = $2 * 2 + 4096 } { print }' \
			"$work/image.orig" >"$image"
		reason="does not match the dumped device: vram_size: dumped"
	else
		sed -e 's|^driver .*|driver vcompute-gone|' \
			-e 's|^path .*|path /dev/dri/renderD250|' "$work/image.orig" >"$image"
		reason="no vcompute-gone render node to restore onto"
	fi
	restore_must_fail "$reason"
	cp "$work/image.orig" "$image"
	restore_must_succeed
	verdict PASS
	;;
dump-fails)
	start_holder
	if ONENODE_CRIU_FAULT=dump dump; then
		fail "criu dump succeeded although the plugin failed"
	fi
	need_log "$img/dump.log" "onenode: plugin loaded for dump"
	need_log "$img/dump.log" "failing the dump"
	alive "$pid" || fail "task $pid died with the failed dump"
	state=$(awk '{print $3}' "/proc/$pid/stat")
	case $state in
	S | R | D) ;;
	*) fail "task $pid left in state $state after the failed dump" ;;
	esac
	verdict PASS
	wait "$pid" || fail "the task exited with status $?"
	;;
dump-refuses-objects)
	CRIU_HOLDER_OBJECTS=1 start_holder
	if dump; then
		fail "criu dump succeeded although the task holds an exported buffer"
	fi
	need_log "$img/dump.log" "onenode: plugin loaded for dump"
	need_log "$img/dump.log" "paused: 1 queues suspended, 1 exported buffers taken from their importers"
	# The queue's ring and state are buffers of the file too.
	need_log "$img/dump.log" "holds 1 compute objects the kernel cannot save yet, among 4 buffers (1 exported, 1 imported), 1 GPU VMs, 1 user queues, 0 SVM ranges"
	need_log "$img/dump.log" "resumed: 1 queues, 1 exported buffers"
	ls "$img"/onenode-*.img >/dev/null 2>&1 && fail "an image was written for a refused file"
	alive "$pid" || fail "task $pid died with the failed dump"
	say "dump refused: $(grep -F "onenode: error" "$img/dump.log" | head -1 | sed 's/.*onenode: //')"
	verdict PASS
	wait "$pid" || fail "the task exited with status $?"
	;;
objects)
	hang_detection_off
	CRIU_HOLDER_OBJECTS=save start_holder
	dump || fail "criu dump failed"
	reap
	check_dump_log
	need_log "$img/dump.log" "onenode: file 0x"
	# Two buffers of the task's own, the busy queue's buffer, ring and state.
	need_log "$img/dump.log" "saved 7 buffers (9596928 bytes of contents"
	# The busy queue's two sync objects, each with a signal pending on its walk.
	need_log "$img/dump.log" "3 GPU VMs, 7 mappings, 2 user queues, 2 sync objects, 2 pending signals, 1 SVM ranges"
	need_log "$img/dump.log" "queue 1 paused at read pointer"
	say "dump: $(grep -F 'saved 5 buffers' "$img/dump.log" | sed 's/.*onenode: //')"
	restore_must_succeed
	need_log "$img/restore.log" "restored 7 buffers (9596928 bytes of contents"
	need_log "$img/restore.log" "3 GPU VMs, 7 mappings, 2 user queues, 2 sync objects, 2 pending signals, 1 SVM ranges"
	need_log "$img/restore.log" "(the doorbell of queue 1)"
	say "restore: $(grep -F 'restored 5 buffers' "$img/restore.log" | sed 's/.*onenode: //')"
	verdict PASS
	;;
objects-other-device)
	hang_detection_off
	CRIU_HOLDER_OBJECTS=save CRIU_HOLDER_MOVED=1 start_holder
	dump || fail "criu dump failed"
	reap
	check_dump_log
	vram=$(awk '$1 == "device.vram_size" { print $2 }' "$image")
	from=$(awk '$1 == "path" { print $2 }' "$image")
	instance_up criu-other "$((vram >> 20))" || fail "no second vcompute instance"
	other=$instance_node
	say "restoring the dump of $from onto $other, a second instance"
	# As on another machine whose node has another minor (CRIU #2888).
	ONENODE_CRIU_RESTORE_NODE=$other restore_must_succeed
	need_log "$img/restore.log" "restored 7 buffers (9596928 bytes of contents"
	need_log "$img/restore.log" "2 user queues, 2 sync objects, 2 pending signals, 1 SVM ranges, at their handles and ids"
	need_log "$img/restore.log" "at $other as fd"
	verdict PASS
	;;
objects-shared)
	CRIU_HOLDER_OBJECTS=shared start_holder
	dump || fail "criu dump failed"
	reap
	# The task's file (the child holds it too), the child's own file.
	need_log "$img/dump.log" "onenode: dump finished (criu status 0): 3 render-node fds seen, 2 files saved"
	need_log "$img/dump.log" "a dma-buf of buffer"
	say "dump: $(grep -F 'a dma-buf of buffer' "$img/dump.log" | sed 's/.*onenode: //')"
	restore_must_succeed
	need_log "$img/restore.log" ": a dma-buf of buffer"
	say "restore: $(grep -F ': a dma-buf of buffer' "$img/restore.log" | sed 's/.*onenode: //')"
	verdict PASS
	;;
dump-refuses-shared)
	refused_outside shared-outside "shares a buffer" \
		"is held by 2 files of the device, 1 of them in the dumped processes: a process outside the dump shares it"
	# The outside process holds the dma-buf fd alone: the kernel counts one
	# file; the plugin finds the fd by the dma-buf's inode.
	refused_outside shared-outside-fd "holds a dma-buf fd of a buffer" \
		"outside the dumped processes, through an fd: it shares the buffer"
	# Only a mapping of the dma-buf, no fd: found in /proc/PID/maps.
	refused_outside shared-outside-map "maps the dma-buf of a buffer" \
		"outside the dumped processes, through a mapping: it shares the buffer"
	# The outside process keeps the task's render-node fd alone: one file to
	# the kernel, the same open file in two processes; kcmp() tells.
	refused_outside shared-outside-file "holds the task's render-node file" \
		"outside the dumped processes, as the same open file"
	;;
objects-damaged)
	hang_detection_off
	CRIU_HOLDER_OBJECTS=save start_holder
	dump || fail "criu dump failed"
	reap
	objects=$(ls "$img"/onenode-objects-*.img 2>/dev/null | head -1)
	[ -n "$objects" ] || fail "no objects image"
	cp "$objects" "$work/objects.orig"
	size=$(stat -c %s "$objects")
	used_before=$(device_memory)
	# One bit in the middle of the buffer contents.
	python3 - "$objects" "$((size / 2))" <<'PY'
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(int(sys.argv[2]))
    b = f.read(1)
    f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0x10]))
PY
	restore_must_fail "(damaged)"
	[ "$(device_memory)" = "$used_before" ] ||
		fail "device memory $(device_memory) after the refused restore, $used_before before"
	head -c "$((size - 100))" "$work/objects.orig" >"$objects"
	restore_must_fail "(truncated)"
	[ "$(device_memory)" = "$used_before" ] ||
		fail "device memory $(device_memory) after the refused restore, $used_before before"
	cp "$work/objects.orig" "$objects"
	restore_must_succeed
	verdict PASS
	;;
*)
	echo "unknown scenario '$scenario'"
	exit 2
	;;
esac
say "ok"
