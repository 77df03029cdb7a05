#!/bin/bash
# Unit test of ./onenode's exit_agrees (tools/lib.sh): a stage that exited
# non-zero without recording a failure gets one; a clean exit, or a failure
# already recorded after the mark, adds nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# lib.sh reads these; exit_agrees only uses RESULTS.
export CACHE=/nonexistent T_CACHE=/nonexistent T_REPO=/nonexistent ONENODE_SRC=$here/../..
# shellcheck source=../lib.sh
. "$here/../lib.sh"
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT
fail=0
check() { # NAME WANT-LINES
	local got
	got=$(grep -c . "$RESULTS")
	if [ "$got" = "$2" ]; then
		echo "ok $1"
	else
		echo "not ok $1: want $2 result lines, got $got:"; cat "$RESULTS"; fail=1
	fi
}

printf 'PASS a/one\n' >"$RESULTS"
exit_agrees stage/exit 0 1 2>/dev/null
check "exit 0 adds nothing" 1

printf 'PASS a/one\nFAIL a/two\n' >"$RESULTS"
exit_agrees stage/exit 1 1 2>/dev/null
check "a failure after the mark explains the exit" 2

printf 'FAIL a/old\nPASS a/one\n' >"$RESULTS"
exit_agrees stage/exit 1 1 2>/dev/null
check "a failure before the mark does not" 3
grep -qx 'FAIL stage/exit' "$RESULTS" || { echo "not ok the added line names the stage"; fail=1; }

: >"$RESULTS"
exit_agrees stage/exit 98 0 2>/dev/null
check "exit without any result line fails" 1
exit $fail
