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
# A missing log is a failure, not an empty success.
if "$bin" meson vm "$dir/does-not-exist" >/dev/null 2>&1; then echo "not ok missing-log"; fail=1; else echo "ok missing-log"; fi
exit $fail
