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

python3 - "$tmp/text" "$tmp/json" "$tmp/json2" <<'PY'
import json, sys
text = open(sys.argv[1]).read().splitlines()
j = json.load(open(sys.argv[2]))
j2 = json.load(open(sys.argv[3]))
assert j == j2, f"--driver and --device differ: {j} vs {j2}"
assert j["driver"] == "vcompute", j
assert j["node"].split("/")[-1].startswith("renderD"), j
fields = ["flags", "version", "features", "vram_size", "vram_bar_size",
          "max_queues", "num_priorities"]
caps = j["caps"]
assert [k for k in caps if k != "feature_names"] == fields, caps.keys()
assert caps["version"] >= 1 and caps["flags"] == 0, caps
assert caps["vram_bar_size"] <= caps["vram_size"], caps
in_text = {}
for line in text:
    parts = line.split()
    if line.startswith("  ") and parts[0] in fields:
        in_text[parts[0]] = int(parts[1], 0)
assert in_text == {k: caps[k] for k in fields}, (in_text, caps)
bits = [n for n in caps["feature_names"]]
assert len(bits) == bin(caps["features"]).count("1"), caps
print("ok: text and JSON agree")
PY
