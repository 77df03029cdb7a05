#!/bin/bash
# SPDX-License-Identifier: MIT
# onenode-caps against the vcompute render node: text and JSON output
# describe the same node and the same DEVICE and USERQ reports, in uapi
# field order, obeying the reports' own rules. Skips (77) without the node.
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

device_fields="features vram_size vram_bar_size placements va_start va_end page_size device_id"
device_fields="$device_fields svm_flags semantics"
userq_fields="caps max_queues num_priorities priority_default priority_privileged num_cus"
userq_fields="$userq_fields queue_formats ring_size_min ring_size_max ctx_save_size"
userq_fields="$userq_fields doorbell_size hang_timeout_ms"
fail() { echo "FAIL: $*"; exit 1; }

# --driver and --device name the same node and report the same values.
cmp -s "$tmp/json" "$tmp/json2" || fail "--driver and --device differ: $(cat "$tmp/json" "$tmp/json2")"
# The JSON: the node, the field order, and the reports' own rules.
jq -e --arg dev "$device_fields" --arg uq "$userq_fields" '
	def values(r): [r | keys_unsorted[] | select(endswith("_names") | not)];
	.driver == "vcompute" and
	(.node | split("/") | last | startswith("renderD")) and
	(values(.device) == ($dev | split(" "))) and
	(values(.userq) == ($uq | split(" "))) and
	(.device.features % 2 == 1) and
	.device.vram_bar_size <= .device.vram_size and
	.device.va_start < .device.va_end and
	.device.page_size >= 4096 and
	.device.device_id > 0 and .device.device_id < 4294967295 and
	(.device.svm_flags % 4 == 3) and .device.semantics == 0 and
	.userq.priority_default < .userq.num_priorities and
	.userq.ring_size_min <= .userq.ring_size_max and
	(.userq.format_names | index("vcompute") != null)' \
	"$tmp/json" >/dev/null || fail "JSON breaks a rule: $(cat "$tmp/json")"
# The text output gives each field as "  NAME VALUE" (decimal or 0x hex)
# under its report's "NAME:" line, with the same value as the JSON. One jq
# and one awk for all fields: every process costs under TCG.
awk '/^[a-z]+:$/ { section = substr($1, 1, length($1) - 1) }
	/^  / && section != "" { print section "." $1, $2 }' "$tmp/text" >"$tmp/text.values"
jq -r '["device", "userq"][] as $s | .[$s] | to_entries[] |
	select(.key | endswith("_names") | not) | "\($s).\(.key) \(.value)"' \
	"$tmp/json" >"$tmp/json.values"
[ "$(wc -l <"$tmp/json.values")" = 22 ] || fail "JSON has $(wc -l <"$tmp/json.values") fields, not 22"
while read -r key j; do
	t=$(awk -v k="$key" '$1 == k { print $2 }' "$tmp/text.values")
	[ -n "$t" ] || fail "text output lacks $key"
	[ $((t)) = "$j" ] || fail "$key: text says $t, JSON says $j"
done <"$tmp/json.values"
# One name per set bit of each bit-set field.
for pair in device.features:feature_names device.placements:placement_names \
	userq.caps:cap_names userq.queue_formats:format_names; do
	field=${pair%%:*}
	v=$(jq -r ".$field" "$tmp/json")
	bits=0
	while [ "$v" != 0 ]; do
		bits=$((bits + (v & 1))); v=$((v >> 1))
	done
	names=$(jq -r ".${field%%.*}.${pair#*:} | length" "$tmp/json")
	[ "$names" = "$bits" ] || fail "$names names for $bits bits of $field"
done
echo "ok: text and JSON agree"
