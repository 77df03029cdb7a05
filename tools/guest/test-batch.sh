#!/bin/bash
# The test batch of one VM boot (./onenode test): every meson test of the
# 'vm' suite in the plain build. KUnit already ran during boot; its results
# are in the kernel log that tools/guest/run.sh saves.
set -u
out=$1
build=${ONENODE_BUILD:-/onenode/cache/build/user}
echo "guest: $(uname -r), $(nproc) CPUs; render nodes: $(ls /dev/dri 2>/dev/null | tr '\n' ' ')"
meson test -C "$build" --suite vm --no-rebuild --print-errorlogs --logbase vm \
	--num-processes 1 --timeout-multiplier "${ONENODE_TIMEOUT_MULTIPLIER:-4}"
rc=$?
cp "$build/meson-logs/vm.json" "$out/vm.json" 2>/dev/null
exit $rc
