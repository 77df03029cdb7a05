#!/bin/bash
# The test batch of one VM boot (./onenode test): every meson test of the
# 'vm' suite in the plain build, then upstream IGT's generic DRM tests
# (igt-tests/upstream/run.sh, results in OUTDIR/igt-upstream). KUnit already
# ran during boot; its results are in the kernel log that
# tools/guest/run.sh saves.
#
# The device tests skip (exit 77) where no vcompute render node exists, which
# is right on a host but wrong here: the debug kernel has vcompute built in.
# So the batch first proves the node is there (OUTDIR/device.txt, checked by
# ./onenode test) and fails when it is not.
set -u
out=$1
build=${ONENODE_BUILD:-/onenode/cache/build/user}
rc=0
echo "guest: $(uname -r), $(nproc) CPUs; render nodes: $(ls /dev/dri 2>/dev/null | tr '\n' ' ')"
if "$build/examples/caps/onenode-caps" >"$out/device.txt" 2>&1; then
	cat "$out/device.txt"
else
	echo "guest: no working vcompute render node; the device tests would only skip:"
	cat "$out/device.txt"
	rm -f "$out/device.txt"
	rc=1
fi
# A stale log of an earlier run must not be counted as this run's.
rm -f "$build/meson-logs/vm.json"
meson test -C "$build" --suite vm --no-rebuild --print-errorlogs --logbase vm \
	--num-processes 1 --timeout-multiplier 4 || rc=$?
cp "$build/meson-logs/vm.json" "$out/vm.json" 2>/dev/null
# Upstream IGT: each test's result is counted on the host (onenode-results
# igt, with igt-tests/upstream/expected.txt); this fails only when the run
# could not start.
"$(dirname "$0")/../../igt-tests/upstream/run.sh" "$out" || rc=1
exit $rc
