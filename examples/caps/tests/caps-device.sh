#!/bin/bash
# SPDX-License-Identifier: MIT
# onenode-caps against the vcompute render node: text and JSON output
# describe the same node and the same caps. Skips (77) without the node.
# Usage: caps-device.sh PATH-TO-onenode-caps
set -eu
caps=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$caps" >"$tmp/text" 2>"$tmp/err"; then
	if grep -q 'no vcompute render node' "$tmp/err"; then
		echo "SKIP: $(cat "$tmp/err")"
		exit 77
	fi
	cat "$tmp/err"
	exit 1
fi
"$caps" --json >"$tmp/json"
cat "$tmp/text" "$tmp/json"
node=$(sed -n 's/^node: *//p' "$tmp/text")
"$caps" --device "$node" --json >"$tmp/json2"

fields="flags version features vram_size vram_bar_size max_queues num_priorities"
fail() { echo "FAIL: $*"; exit 1; }

# --driver and --device name the same node and report the same caps.
cmp -s "$tmp/json" "$tmp/json2" || fail "--driver and --device differ: $(cat "$tmp/json" "$tmp/json2")"
# The JSON: the node, the field order, and the report's own rules.
jq -e --arg fields "$fields" '
	.driver == "vcompute" and
	(.node | split("/") | last | startswith("renderD")) and
	([.caps | keys_unsorted[] | select(. != "feature_names")] == ($fields | split(" "))) and
	.caps.version >= 1 and .caps.flags == 0 and
	.caps.vram_bar_size <= .caps.vram_size' "$tmp/json" >/dev/null ||
	fail "JSON breaks a rule: $(cat "$tmp/json")"
# The text output gives each field as "  NAME VALUE" (decimal or 0x hex),
# with the same value as the JSON.
for f in $fields; do
	t=$(awk -v f="$f" '/^  / && $1 == f { print $2 }' "$tmp/text")
	j=$(jq -r ".caps.$f" "$tmp/json")
	[ -n "$t" ] || fail "text output lacks $f"
	[ $((t)) = "$j" ] || fail "$f: text says $t, JSON says $j"
done
# One feature name per feature bit.
features=$(jq -r .caps.features "$tmp/json")
bits=0
while [ "$features" != 0 ]; do
	bits=$((bits + (features & 1))); features=$((features >> 1))
done
names=$(jq -r '.caps.feature_names | length' "$tmp/json")
[ "$names" = "$bits" ] || fail "$names feature names for $bits feature bits"
echo "ok: text and JSON agree"
