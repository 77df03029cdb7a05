#!/bin/bash
# Inside the VM: tools/guest/profile.sh OUTDIR CMD...: runs CMD under
# `perf record` (every CPU, kernel call chains, 997 Hz of the cpu-clock
# software event: TCG has no PMU), then writes to OUTDIR and prints where
# the time went: perf-symbols.txt (self time per symbol, every CPU),
# perf-callers.txt (the same with call chains) and perf-inclusive.txt (a
# function with everything it calls). ./onenode bench svm
# --profile runs it; the Debian 13 tree's linux-perf (6.12) reads the 7.3
# kernel's samples (perf's file format is kernel-independent).
out=${1:?usage: profile.sh OUTDIR CMD...}
shift
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
perf record -q -a -g -F 997 -e cpu-clock -o /tmp/perf.data -- "$@"
rc=$?
perf report -q -i /tmp/perf.data --stdio --no-children --sort dso,sym --percent-limit 0.3 \
	-g none >"$out/perf-symbols.txt" 2>/dev/null
perf report -q -i /tmp/perf.data --stdio --no-children --sort sym --percent-limit 2 \
	-g caller,0.5,callee --max-stack 12 >"$out/perf-callers.txt" 2>/dev/null
perf report -q -i /tmp/perf.data --stdio --children --sort sym --percent-limit 0.5 \
	-g none >"$out/perf-inclusive.txt" 2>/dev/null
echo "== where the time went (self, every CPU, >= 0.3%; call chains in $out/perf-callers.txt):"
head -60 "$out/perf-symbols.txt"
echo "== inclusive (a function and what it calls), kernel, >= 0.5%:"
grep -F '[k]' "$out/perf-inclusive.txt" | head -70
exit "$rc"
