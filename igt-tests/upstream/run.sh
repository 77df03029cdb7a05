#!/bin/bash
# igt-tests/upstream/run.sh OUTDIR: upstream IGT's generic DRM tests
# (tests.txt, from the IGT that ./onenode unpacks into /opt/igt of the tree)
# against vcompute's default instance (a test marked "pci" in tests.txt:
# against the last vcompute PCI instance), in the VM.
#
# Each binary runs once, whole, under a time limit (IGT_UPSTREAM_TIMEOUT
# seconds, default 300, then SIGKILL); its output goes to
# OUTDIR/igt-upstream/TEST.txt and a line "TEST EXIT-STATUS SECONDS" to
# OUTDIR/igt-upstream/index.txt. The host turns that into one result per
# subtest, applying expected.txt:
#   onenode-results igt STAGE OUTDIR/igt-upstream igt-tests/upstream/expected.txt
# A test that exits non-zero also leaves its subtest list in TEST.list, so
# subtests it never reached are counted too.
# The exit status is 0 when every test ran (whatever its result), 1 when the
# run could not start (no IGT, no device): that is recorded as a failing
# "setup" entry too.
set -u
out=${1:?usage: run.sh OUTDIR}
here=$(dirname "$(readlink -f "$0")")
dir=$out/igt-upstream
limit=${IGT_UPSTREAM_TIMEOUT:-300}
dev=${IGT_UPSTREAM_DEVICE:-/sys/devices/faux/vcompute.0}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
echo "# igt-tests/upstream/run.sh: TEST EXIT-STATUS SECONDS (output in TEST.txt)" >"$dir/index.txt"

# setup_failed MESSAGE: record why nothing ran, as the failing entry "setup".
setup_failed() {
	echo "igt-upstream: $1" | tee "$dir/setup.txt" >&2
	echo "setup 1 0" >>"$dir/index.txt"
	exit 1
}

[ -r /opt/igt/env.sh ] || setup_failed "no /opt/igt/env.sh: ./onenode env installs upstream IGT into the tree"
# shellcheck source=/dev/null
. /opt/igt/env.sh
# The device must be there with both nodes: IGT opens the card node
# (DRIVER_ANY) or the render node through this parent device.
card=$(compgen -G "$dev/drm/card*" | head -1)
render=$(compgen -G "$dev/drm/renderD*" | head -1)
if [ -z "$card" ] || [ -z "$render" ]; then
	setup_failed "$dev has no DRM card and render node (in $dev/drm: $(echo "$dev"/drm/*))"
fi

# A PCI instance for the tests marked "pci": the last function vcompute
# drives (tools/guest/run.sh hands it the VM's ivshmem functions).
pci_dev=$(compgen -G "/sys/bus/pci/drivers/vcompute/0000:*" | tail -1)
[ -n "$pci_dev" ] && pci_dev=$(readlink -f "$pci_dev")

# IGT's device filter: the sysfs path of the parent device (a filter on the
# render node alone leaves tests that open the card node without a device).
# IGT_FORCE_DRIVER makes IGT check the driver name on every open.
export IGT_FORCE_DRIVER=vcompute
echo "igt-upstream: $(cat /opt/igt/VERSION) on $dev ($(basename "$card"), $(basename "$render")), PCI instance ${pci_dev:-none}, $limit s per test"
t_all=$(date +%s.%N)
while read -r t where only; do
	case $t in '' | '#'*) continue ;; esac
	export IGT_DEVICE=sys:$dev
	if [ "$where" = pci ]; then
		# Without one the test finds no device and fails: that is counted.
		export IGT_DEVICE=sys:${pci_dev:-/sys/bus/pci/drivers/vcompute/none}
	fi
	bin=/opt/igt/libexec/igt-gpu-tools/$t
	# A third word: the only subtests to run (comma-separated); the others
	# go to TEST.notrun, which the host counts as failures unless
	# expected.txt gives their reason.
	args=()
	if [ -n "$only" ] && [ -x "$bin" ]; then
		args=(--run-subtest "$only")
		timeout -s KILL 60 "$bin" --list-subtests 2>/dev/null |
			grep -vxF -f <(tr ',' '\n' <<<"$only") >"$dir/$t.notrun"
	fi
	t0=$(date +%s.%N)
	if [ -x "$bin" ]; then
		timeout -s KILL "$limit" "$bin" "${args[@]}" </dev/null >"$dir/$t.txt" 2>&1
		rc=$?
	else
		echo "igt-upstream: $bin is missing" >"$dir/$t.txt"
		rc=127
	fi
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	# A test that failed may have ended before some subtests (IGT aborts,
	# a crash, the time limit): the host counts those from this list.
	if [ $rc != 0 ] && [ $rc != 127 ]; then
		timeout -s KILL 60 "$bin" --list-subtests >"$dir/$t.list" 2>/dev/null
	fi
	echo "$t $rc $secs" >>"$dir/index.txt"
	printf 'igt-upstream: %-24s exit %3d %7.1f s  %s\n' "$t" "$rc" "$secs" \
		"$(grep -ohE '^(Dynamic s|S)ubtest .*: (SUCCESS|SKIP|FAIL|CRASH|TIMEOUT)' "$dir/$t.txt" |
			awk '{print $NF}' | sort | uniq -c | tr -s ' \n' ' ')"
done <"$here/tests.txt"
echo "igt-upstream: all tests $(echo "$(date +%s.%N) - $t_all" | bc) s"
exit 0
