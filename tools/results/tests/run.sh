#!/bin/sh
# Golden tests of onenode-results: each NAME.in must produce NAME.expected.
set -u
bin=$1 dir=$2 fail=0
for t in meson ktap ktap-empty; do
	mode=${t%%-*}
	stage=vm
	[ "$mode" = ktap ] && stage=kunit
	if "$bin" "$mode" "$stage" "$dir/$t.in" | diff -u "$dir/$t.expected" -; then
		echo "ok $t"
	else
		echo "not ok $t"; fail=1
	fi
done
# igt: the directory igt/ (run.sh's index and logs) with igt-expected.txt.
if "$bin" igt vm/igt-upstream "$dir/igt" "$dir/igt-expected.txt" | diff -u "$dir/igt.expected" -; then
	echo "ok igt"
else
	echo "not ok igt"; fail=1
fi
# run.sh could not start: its reason, and no complaint about expected.txt.
setup=$("$bin" igt vm "$dir/igt-setup" "$dir/igt-expected.txt")
if [ "$setup" = "FAIL vm/setup (igt-upstream: no /opt/igt/env.sh: ./onenode env installs upstream IGT into the tree)" ]; then
	echo "ok igt-setup"
else
	echo "not ok igt-setup: $setup"; fail=1
fi
# A missing log is a failure, not an empty success.
if "$bin" meson vm "$dir/does-not-exist" >/dev/null 2>&1; then echo "not ok missing-log"; fail=1; else echo "ok missing-log"; fi
if "$bin" igt vm "$dir/does-not-exist" "$dir/igt-expected.txt" >/dev/null 2>&1; then echo "not ok igt-missing-log"; fail=1; else echo "ok igt-missing-log"; fi
# A malformed expected list fails the stage, whatever the results.
if bad=$(echo "core_a/basic maybe" | "$bin" igt vm "$dir/igt" /dev/stdin); then
	echo "not ok igt-bad-expected: exit status 0"; fail=1
elif [ "$bad" = "FAIL vm/expected-list (line 1: want 'TEST/SUBTEST skip|fail|flaky REASON', once per name)" ]; then
	echo "ok igt-bad-expected"
else
	echo "not ok igt-bad-expected: $bad"; fail=1
fi
exit $fail
