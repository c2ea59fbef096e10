#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench.sh: bench/rc in its quick mode (one repeat, 50 round trips of 64 B, a
# storm of 20), so every reference tool really runs on rxe and its output goes
# through bench/lib.sh's parser: a changed output format of ib_send_lat,
# ib_write_lat, ibv_rc_pingpong, cmtime or rdmacap fails here. Figures are not
# judged (TCG). Then bench/nvmf's quick mode (3 controllers, one repeat): the
# shell loop's and rdmacap's controllers/s both parsed. Needs root and rxe inside
# namespaces: in the VM,
#
#   vm/run -- suites/vm/bench.sh
#
# TAP 13 on stdout: bench/rc's own stream nested, then the samples checked.
# Exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

W=$(mktemp -d /tmp/bench.sh.XXXXXX)
trap 'rm -rf "$W"' EXIT

# "tool/kind" of every figure a full comparison set has.
WANT="cmtime/rate cmtime/rate.connect ib_send_lat/p99 ib_send_lat/typ ib_write_lat/p99 \
ib_write_lat/typ ibv_rc_pingpong/typ rdmacap run --op write/p99 rdmacap run --op write/typ \
rdmacap run --poll adaptive/p99 rdmacap run --poll adaptive/typ rdmacap run --poll busy/p99 \
rdmacap run --poll busy/typ rdmacap run --poll event/p99 rdmacap run --poll event/typ \
rdmacap storm --cm oob-tls/rate rdmacap storm --cm rdmacm --cm-order phased/rate \
rdmacap storm --cm rdmacm --cm-order pipelined/rate \
rdmacap storm --server-threads 1/rate rdmacap storm --server-threads 2/rate"

main() {
	local rc=0 got
	tap_init
	BENCH_OUT=$W BENCH_REPEAT=1 BENCH_ITERS=50 BENCH_SIZES=64 BENCH_CONNS=20 BENCH_THREADS=20 \
		BENCH_TIMEOUT=120 "$RDC_ROOT/bench/rc" >"$W/rc.tap" 2>"$W/rc.err" || rc=$?
	if [ $rc = 4 ]; then
		tap_skip_all "$(sed -n 's/^1\.\.0 # SKIP //p' "$W/rc.tap")"
		exit 4
	fi
	# bench/rc's own stream, nested under its result
	tap_embed "$W/rc.tap"
	[ $rc = 0 ] || tap_diag "$(tail -n 20 "$W/rc.err")"
	if [ $rc = 0 ]; then tap_ok "bench/rc quick run"; else tap_fail "bench/rc quick run" "exit $rc"; fi
	got=$(jq -r '"\(.tool)/\(.kind)"' "$W/rc.jsonl" 2>/dev/null | sort | tr '\n' ' ')
	if [ "$got" = "$WANT " ]; then tap_ok "every figure of every tool parsed"; else
		tap_fail "every figure of every tool parsed" "got: $got"; fi
	if [ "$(jq -s 'length > 0 and all(.[]; .value > 0)' "$W/rc.jsonl" 2>/dev/null)" = true ]; then
		tap_ok "every figure positive"; else tap_fail "every figure positive"; fi
	"$RDC_ROOT/bench/table" "$W" >"$W/table.md" 2>&1
	# send: 3 --poll modes x (ib_send_lat, ibv_rc_pingpong) typical + 3 x ib_send_lat p99;
	# write: 2; setup: 3 x (cmtime whole, connect step); threads: 2 loops over 1
	if [ "$(grep -c '^| `rdmacap' "$W/table.md")" = 18 ]; then tap_ok "bench/table: 18 ratios"; else
		tap_diag "$(cat "$W/table.md")"
		tap_fail "bench/table: 18 ratios"
	fi
	# BENCH_ONLY: one group runs, the others not at all
	BENCH_OUT=$W/only BENCH_REPEAT=1 BENCH_ITERS=20 BENCH_SIZES=64 BENCH_CONNS=20 BENCH_THREADS=20 \
		BENCH_ONLY=write64 BENCH_TIMEOUT=120 "$RDC_ROOT/bench/rc" >"$W/only.tap" 2>&1
	got=$(jq -r '.cmp' "$W/only/rc.jsonl" 2>/dev/null | sort -u | tr '\n' ' ')
	if [ "$got" = "rc-write-64 " ]; then tap_ok "BENCH_ONLY=write64 runs that group only"; else
		tap_fail "BENCH_ONLY=write64 runs that group only" "got: $got"; fi
	# bench/nvmf: the kernel's target and initiator, a shell loop beside rdmacap
	rc=0
	BENCH_OUT=$W/nvmf BENCH_REPEAT=1 BENCH_NVMF=3 BENCH_TIMEOUT=120 \
		"$RDC_ROOT/bench/nvmf" >"$W/nvmf.tap" 2>"$W/nvmf.err" || rc=$?
	got=$(jq -r '"\(.tool)/\(.kind)"' "$W/nvmf/nvmf.jsonl" 2>/dev/null | sort | tr '\n' ' ')
	if [ $rc = 4 ]; then
		tap_skip "bench/nvmf quick run" "$(sed -n 's/^1\.\.0 # SKIP //p' "$W/nvmf.tap")"
	elif [ $rc = 0 ] && [ "$got" = "rdmacap run --transport nvmf/rate shell loop/rate " ] &&
		[ "$(jq -s 'all(.[]; .value > 0)' "$W/nvmf/nvmf.jsonl")" = true ]; then
		tap_ok "bench/nvmf quick run: the shell loop's and rdmacap's controllers/s"
	else
		tap_diag "$(cat "$W/nvmf.tap"; tail -n 20 "$W/nvmf.err")"
		tap_fail "bench/nvmf quick run" "exit $rc, figures: $got"
	fi
	tap_plan 6
	tap_finished
}

main "$@"
