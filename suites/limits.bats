#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# The limit tests on TCP, on this host: capacity ramp rendered as the seed
# reports' table, limit search at 100% and 95% with a named cause, connection
# storm, client pooling. (The rc versions run in the rxe VM: suites/vm/.)

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

setup() {
	rdc_require_rdmacap
	RDC_DIR=$(mktemp -d /tmp/rdc-limits.XXXXXX)
}

teardown() {
	rdc_bg_kill
	rm -rf "$RDC_DIR"
}


@test "capacity ramp: the seed table from real counters, as Markdown and SVG" {
	rdc_run ramp --transport tcp --topology loop --clients 10,50,100 --msgs 5 \
		--json "$RDC_DIR/ramp.json"
	assert_success
	run "$RDMACAP" report --md "$RDC_DIR/r.md" --svg "$RDC_DIR/r.svg" "$RDC_DIR/ramp.json"
	assert_success
	# header and one row per point, each 100% and ok
	grep -q '^| Transport | Clients | Connected | Success |' "$RDC_DIR/r.md"
	[ "$(grep -c '^| tcp | [0-9]* | [0-9]* | 100.00% |.* pass |' "$RDC_DIR/r.md")" -eq 3 ]
	# the chart is well-formed XML with the three panels, and renders
	run xmllint --noout "$RDC_DIR/r.svg"
	assert_success
	[ "$(grep -c '<polyline' "$RDC_DIR/r.svg")" -ge 3 ]
	run rsvg-convert -o "$RDC_DIR/r.png" "$RDC_DIR/r.svg"
	assert_success
	[ "$(head -c 8 "$RDC_DIR/r.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
	# latency on a log axis with round decade ticks, units in the titles
	grep -q 'Round-trip latency (microseconds, log scale)' "$RDC_DIR/r.svg"
	grep -qE "text-anchor='end'>(10|100|1000|10000)</text>" "$RDC_DIR/r.svg"
	! grep -qE "text-anchor='end'>[0-9]*[1-9][0-9]*[1-9]</text>" "$RDC_DIR/r.svg" || false
}

@test "report: a baseline run is shown beside the new one; garbage input is refused" {
	rdc_run run --transport tcp --topology loop --clients 20 --msgs 2 --json "$RDC_DIR/old.json"
	assert_success
	rdc_run run --transport tcp --topology loop --clients 20 --msgs 2 --json "$RDC_DIR/new.json"
	assert_success
	run "$RDMACAP" report --baseline "$RDC_DIR/old.json" "$RDC_DIR/new.json"
	assert_success
	[[ "$output" == *"(was "* ]]
	echo '{"not":"rdmacap"}' >"$RDC_DIR/bad.json"
	run --separate-stderr "$RDMACAP" report "$RDC_DIR/bad.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"not an rdmacap result"* ]]
}

@test "limit: largest N at 100% and 95%, cause named (RLIMIT_NOFILE forced to 1500)" {
	# nobody may raise the limit (CAP_SYS_RESOURCE dropped), one client agent
	run --separate-stderr rdc_timeout 600 setpriv --bounding-set -sys_resource \
		prlimit --nofile=1500:1500 -- "$RDMACAP" limit --transport tcp --topology loop \
		--agents 1 --start 250 --max 4000 --msgs 1 --json "$RDC_DIR/limit.json"
	assert_success
	local l100 l95
	l100=$(grep -A0 -m1 'limit at 100% success' <<<"$output" | grep -oE ': [0-9]+ clients' | grep -oE '[0-9]+')
	l95=$(grep 'limit at 95% success' <<<"$output" | grep -oE ': [0-9]+ clients' | grep -oE '[0-9]+')
	# about 1500 fds minus the agent's own: the limit is just below that
	[ "$l100" -ge 1300 ] && [ "$l100" -le 1500 ]
	[ "$l95" -ge "$l100" ]
	[[ "$output" == *"EMFILE"*"RLIMIT_NOFILE"* ]]
	# points past the limit are XFAIL, not failures
	[[ "$output" == *"# XFAIL"* ]]
	grep -q '# Totals: pass:[0-9]* fail:0' <<<"$output"
}

@test "storm: N clients at the same instant, setup rate and first-message spread" {
	rdc_run storm --transport tcp --topology loop --clients 1000
	assert_success
	[ "$(rdc_out_word connected)" -eq 1000 ]
	[ -n "$(rdc_out_word setup_rate_cps)" ]
	[ -n "$(rdc_out_word first_msg_us_p99)" ]
	# one first message per client
	[ "$(rdc_out_word msgs)" -eq 1000 ]
	run --separate-stderr "$RDMACAP" storm --stagger-ms 5
	[ "$status" -eq 2 ]
}

@test "client pooling: W workers over 64 connections, every round trip verified, msgs/s per W" {
	local w
	# the seed's pooling table, measured: a figure per W, not a claim about its shape
	for w in 1 4 16 64; do
		rdc_run run --transport tcp --topology loop --clients 64 --agents 1 --msgs 200 \
			--workers "$w"
		assert_success
		[ "$(rdc_out_word verified)" -eq 12800 ]
		echo "# pooling connections=64 workers=$w msgs_per_s=$(rdc_out_word msgs_per_s) lat_us_p50=$(rdc_out_word lat_us_p50) lat_us_p99=$(rdc_out_word lat_us_p99)" >&3
	done
}
