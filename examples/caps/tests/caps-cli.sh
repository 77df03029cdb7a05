#!/bin/bash
# SPDX-License-Identifier: MIT
# onenode-caps without a device: usage errors exit 2, a missing device
# exits 1 with a message naming the driver and the directory searched.
# Usage: caps-cli.sh PATH-TO-onenode-caps
set -u
caps=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME STATUS GREP-PATTERN -- ARGS...: run, check status and stderr.
expect() {
	local name=$1 want=$2 pattern=$3 got
	shift 4
	ONENODE_DRI_DIR=$tmp "$caps" "$@" >"$tmp.out" 2>"$tmp.err"
	got=$?
	if [ "$got" != "$want" ] || ! grep -q -- "$pattern" "$tmp.out" "$tmp.err"; then
		echo "FAIL $name: status $got (want $want), output:"
		sed 's/^/  | /' "$tmp.out" "$tmp.err"
		fail=1
	else
		echo "ok   $name"
	fi
	rm -f "$tmp.out" "$tmp.err"
}

expect help 0 'usage: onenode-caps' -- --help
expect unknown-arg 2 "unknown argument '--bogus'" -- --bogus
expect missing-value 2 '--device needs a value' -- --device
expect both 2 'exclude each other' -- --device /dev/null --driver vcompute
expect no-device 1 "no vcompute render node in $tmp" --
expect no-device-json 1 "no vcompute render node in $tmp" -- --json
expect other-driver 1 "no foo render node in $tmp" -- --driver foo
expect missing-path 1 "cannot open $tmp/nope: no such DRM render node" -- --device "$tmp/nope"
expect not-drm 1 'cannot open /dev/null: not a DRM device' -- --device /dev/null
exit $fail
