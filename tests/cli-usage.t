#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rdmacap's bad command lines end before anything exists: every value the agent
# would reject (common/opt.h) exits 2 with the usage line, and leaves no rdc
# namespace, no agent process and no --json file behind. Also `report` with its
# files and options in any order. Prints TAP; RDMACAP overrides the binary.
# Touches namespaces only by listing them; run it under /tmp/rdmacap-host.lock
# like the other host tests so that a parallel run's namespaces do not count.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
RDMACAP=${RDMACAP:-$ROOT/build/rdmacap}
# shellcheck source=../tap/tap.sh
. "$ROOT/tap/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the agent rdmacap would start leaves a mark: no mark, no process was created
cat >"$T/agent" <<AGENT
#!/bin/sh
touch "$T/spawned"
exec "$ROOT/build/rdmacap-agent" "\$@"
AGENT
chmod +x "$T/agent"
export RDMACAP_AGENT=$T/agent

rdc_ns() { ip netns list 2>/dev/null | awk '$1 ~ /^rdc/ { print $1 }' | sort; }

BAD=(
	"--server-threads 100"
	"--server-threads 0"
	"--workers 2000000"
	"--msgs 100000001"
	"--size 0"
	"--size 1048577"
	"--timeout 0"
	"--ports 65"
	"--think-ms 600001"
	"--transport udp"
	"--transport tcp --srq"
	"--transport tcp --cm rdmacm"
	"--transport tcp --oob-session per-conn"
	"--transport rc --cq both"
	"--transport rc --op read"
	"--transport rc --tls-ca $T/ca.pem"
	"--agents 1 --clients 1048577"
	"--srq=1"
	"--verbose=1"
)

tap_init
tap_plan $((${#BAD[@]} + 4))
for args in "${BAD[@]}"; do
	before=$(rdc_ns)
	rm -f "$T/spawned" "$T/out.json"
	# shellcheck disable=SC2086 # args is a list of words
	timeout 20 "$RDMACAP" run --topology loop --clients 1 --json "$T/out.json" $args \
		>"$T/out" 2>"$T/err"
	rc=$?
	after=$(rdc_ns)
	why=
	[ $rc -eq 2 ] || why+=" exit=$rc"
	grep -q '^usage: rdmacap run' "$T/err" || why+=" no usage line"
	[ -e "$T/spawned" ] && why+=" an agent was started"
	[ -e "$T/out.json" ] && why+=" --json file written"
	[ "$before" = "$after" ] || why+=" namespaces changed: $(echo "$after" | tr '\n' ' ')"
	[ -s "$T/out" ] && why+=" stdout not empty"
	desc="run $args: exit 2 before anything is created ($(head -1 "$T/err"))"
	if [ -z "$why" ]; then tap_ok "$desc"; else tap_fail "$desc" "${why# }"; fi
done

# report: options and files in any order; inputs checked before output is written
cat >"$T/run.json" <<'JSON'
{"rdmacap": "test", "plan": {"transport": "tcp"},
 "points": [{"clients": 10, "connected": 10, "success_pct": 100, "verdict": "pass"}]}
JSON
"$RDMACAP" report "$T/run.json" --md "$T/a.md" >"$T/out" 2>"$T/err"
rc=$?
desc="report FILE --md OUT: reads FILE, writes OUT (exit $rc)"
if [ $rc -eq 0 ] && grep -q '| tcp | 10 |' "$T/a.md"; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
"$RDMACAP" report --md "$T/b.md" "$T/run.json" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$T/b.md" ] && cmp -s "$T/a.md" "$T/b.md"; then
	tap_ok "report --md OUT FILE: the same table (exit $rc)"
else
	tap_fail "report --md OUT FILE: the same table (exit $rc)" "$(head -1 "$T/err")"
fi
"$RDMACAP" report "$T/missing.json" --md "$T/c.md" >"$T/out" 2>"$T/err"
rc=$?
desc="report MISSING --md OUT: exit 2 naming the file, nothing written (exit $rc)"
if [ $rc -eq 2 ] && grep -q "missing.json" "$T/err" && [ ! -e "$T/c.md" ]; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
chmod 000 "$T/run.json"
"$RDMACAP" report "$T/run.json" "$T/missing.json" --md "$T/d.md" >"$T/out" 2>"$T/err"
rc=$?
chmod 644 "$T/run.json"
desc="report with one unreadable input: exit 2 naming it, nothing written (exit $rc)"
if [ $rc -eq 2 ] && grep -q "json" "$T/err" && [ ! -e "$T/d.md" ]; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(head -1 "$T/err")"
fi
tap_finished
