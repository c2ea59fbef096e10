#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/ without the VM: the parsers of every reference tool's output against
# outputs recorded from the real tools (tests/bench/*.out, rxe VM and this host),
# bench/table's arithmetic on made-up samples (units, per-repeat ratios, median
# of three), and, as root with sockperf, bench/tcp in its quick mode (one repeat,
# tiny counts) so a change in sockperf's or rdmacap's output fails here. The rc
# part runs live in the VM: suites/vm/bench.sh. TAP on stdout.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=../bench/lib.sh
. "$ROOT/bench/lib.sh"
FX=$ROOT/tests/bench

is() { # is DESC GOT WANT
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "got '$2', want '$3'"
	fi
}

parsers() {
	is "ib_send_lat: t_typical and 99% percentile, one way" \
		"$(bn_parse_perftest <"$FX/ib_send_lat.out")" "73.65 10999.39"
	is "ib_write_lat: t_typical and 99% percentile, one way" \
		"$(bn_parse_perftest <"$FX/ib_write_lat.out")" "99.47 3939.18"
	is "ibv_rc_pingpong: usec/iter" "$(bn_parse_pingpong <"$FX/ibv_rc_pingpong.out")" 1625.56
	is "cmtime: create id..connect, connect, errors" \
		"$(bn_parse_cmtime <"$FX/cmtime.out")" "464.79 407.07 0"
	is "sockperf: percentiles 50 and 99 without colour escapes" \
		"$(bn_parse_sockperf <"$FX/sockperf.out")" "26.834 40.850"
	is "fi_pingpong: usec/xfer of a 4k row" "$(bn_parse_fi_pingpong <"$FX/fi_pingpong.out")" 281.75
	# a header the parser does not know, or a table cut short, is no figure
	sed 's/t_typical/t_median/' "$FX/ib_send_lat.out" | bn_parse_perftest >/dev/null
	is "perftest: unknown header refused" $? 1
	grep -v '^connect ' "$FX/cmtime.out" | bn_parse_cmtime >/dev/null
	is "cmtime: missing connect step refused" $? 1
	{ cat "$FX/cmtime.out"; echo "event: RDMA_CM_EVENT_REJECTED, error: 8"; } >"$T/cm"
	is "cmtime: a rejected connection counted" "$(bn_parse_cmtime <"$T/cm")" "464.79 407.07 1"
	bn_parse_sockperf </dev/null >/dev/null
	is "sockperf: empty output refused" $? 1
	bn_parse_pingpong </dev/null >/dev/null
	is "ibv_rc_pingpong: empty output refused" $? 1
}

# Three repeats of a latency comparison and a rate comparison; ratios are paired
# within a repeat, then min / median / max.
table() {
	local d=$T/tab q
	mkdir -p "$d"
	cat >"$d/rc.jsonl" <<-'EOF'
	{"cmp":"rc-send-64","rep":1,"tool":"rdmacap run","kind":"typ","value":300,"unit":"us RTT","reported":"","cmd":"a"}
	{"cmp":"rc-send-64","rep":1,"tool":"ib_send_lat","kind":"typ","value":100,"unit":"us RTT","reported":"","cmd":"b"}
	{"cmp":"rc-send-64","rep":2,"tool":"rdmacap run","kind":"typ","value":400,"unit":"us RTT","reported":"","cmd":"a"}
	{"cmp":"rc-send-64","rep":2,"tool":"ib_send_lat","kind":"typ","value":100,"unit":"us RTT","reported":"","cmd":"b"}
	{"cmp":"rc-send-64","rep":3,"tool":"rdmacap run","kind":"typ","value":200,"unit":"us RTT","reported":"","cmd":"a"}
	{"cmp":"rc-send-64","rep":3,"tool":"ib_send_lat","kind":"typ","value":200,"unit":"us RTT","reported":"","cmd":"b"}
	{"cmp":"setup-10","rep":1,"tool":"rdmacap storm --cm rdmacm","kind":"rate","value":50,"unit":"conn/s","reported":"","cmd":"c"}
	{"cmp":"setup-10","rep":1,"tool":"cmtime","kind":"rate","value":100,"unit":"conn/s","reported":"","cmd":"d"}
	{"cmp":"setup-10","rep":1,"tool":"cmtime","kind":"rate.connect","value":200,"unit":"conn/s","reported":"","cmd":"d"}
	EOF
	bench/table "$d" >"$d/out.md"
	is "bench/table exits 0" $? 0
	q='.comparisons[] | select(.cmp == "rc-send-64") | .ratios[0].stats | "\(.min) \(.median) \(.max) \(.n)"'
	is "latency ratio: per repeat, min/median/max" "$(jq -r "$q" "$d/bench.json")" "1 3 4 3"
	q='.comparisons[] | select(.cmp == "rc-send-64") | .rows[] | select(.tool == "ib_send_lat") | .stats.median'
	is "reference median of three" "$(jq -r "$q" "$d/bench.json")" 100
	q='[.comparisons[] | select(.cmp == "setup-10") | .ratios[] | "\(.ref_kind)=\(.stats.median)"] | join(" ")'
	is "rate ratios against cmtime's whole setup and connect step" "$(jq -r "$q" "$d/bench.json")" \
		"rate=0.5 rate.connect=0.25"
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	grep -q '^| `rdmacap run` | `ib_send_lat` (one way = RTT/2, doubled here) | p50 / typical | 200 / 300 / 400 | 100 / 100 / 200 | 1 / 3 / 4x (n=3) |$' "$d/out.md"
	is "Markdown row with units and spreads" $? 0
	bench/table "$T/none" >/dev/null 2>&1
	is "no samples: exit 1" $? 1
}

live_tcp() {
	local d=$T/live rc
	if [ "$(id -u)" != 0 ] || ! command -v sockperf >/dev/null || [ ! -x "$RDMACAP" ]; then
		tap_skip "bench/tcp quick run" "needs root, sockperf and build/rdmacap"
		return
	fi
	BENCH_OUT=$d BENCH_REPEAT=1 BENCH_ITERS=50 BENCH_SIZES=64 BENCH_SOCKPERF_S=1 \
		BENCH_TIMEOUT=60 "$ROOT/bench/tcp" >"$d.tap" 2>"$d.err"
	rc=$?
	[ $rc = 0 ] || tap_diag "$(cat "$d.tap" "$d.err")"
	is "bench/tcp quick run exits 0" $rc 0
	is "both tools measured, p50 and p99 each" \
		"$(jq -r '"\(.tool)/\(.kind)"' "$d/tcp.jsonl" 2>/dev/null | sort | tr '\n' ' ')" \
		"rdmacap run --transport tcp/p99 rdmacap run --transport tcp/typ sockperf ping-pong/p99 sockperf ping-pong/typ "
	is "every figure positive" "$(jq -s 'all(.[]; .value > 0)' "$d/tcp.jsonl" 2>/dev/null)" true
}

cd "$ROOT" || exit 1
tap_init
parsers
table
live_tcp
tap_finished
