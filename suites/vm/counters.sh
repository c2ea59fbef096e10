#!/bin/bash
# SPDX-License-Identifier: MIT
#
# counters.sh: the wire's own counters and the run's QP states beside an rc point,
# inside the rxe VM, driven through build/rdmacap:
#
#   vm/run --share $PWD -- suites/vm/counters.sh
#
#   1 a clean rc point (pair, CNT_CLIENTS clients x CNT_MSGS round trips): on the
#     server's device sent_pkts and rcvd_pkts moved by at least 2 x msgs x clients
#     (a request or response and an ACK each way), so did the client's; every QP
#     of the run is RTS at peak (2 per client: both ends), none is left after;
#     the JSON has the same deltas and a counter series
#   2 link down during traffic: the client namespace's veth goes down once 300
#     packets crossed the wire; the point fails, its cause carries the counters' account
#     ("wire: ...": retry exceeded, retransmissions, ...), the run's QPs end in
#     ERR or are named, and none is left after the agents are gone
#
# TAP 13 on stdout, figures as "# key=value"; exit 0 pass, 1 fail, 4 skip.
#
#   CNT_CLIENTS  clients of test 1 (10)     CNT_MSGS  round trips each (50)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

CLIENTS=${CNT_CLIENTS:-10}
MSGS=${CNT_MSGS:-50}
W=
OUT=

log() { echo "counters.sh: $*" >&2; }

# ge A B: A is a number >= B.
ge() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ]; }

# Packets sent by every RDMA port, as `rdma statistic show` lists them.
sent_pkts() {
	local n

	n=$(rdma -j statistic show 2>/dev/null | jq '[.[] | .sent_pkts // 0] | add // 0' 2>/dev/null)
	echo "${n:-0}"
}

t_clean() {
	local ok=0 need=$((2 * MSGS * CLIENTS)) v j

	OUT=$W/clean.tap
	log "clean: $RDMACAP run --transport rc --clients $CLIENTS --msgs $MSGS"
	rdc_timeout 300 "$RDMACAP" run --transport rc --topology pair --clients "$CLIENTS" \
		--msgs "$MSGS" --json "$W/clean.json" >"$OUT" 2>"$W/clean.err" || ok=1
	grep -E '^ *# (wire_|qp_)' "$OUT" | sed 's/^ *//'
	for v in "wire_srv sent_pkts" "wire_srv rcvd_pkts" "wire_cli sent_pkts" "wire_cli rcvd_pkts"; do
		# shellcheck disable=SC2086 # v is two words: LINE KEY
		ge "$(rdc_line_kv $v)" "$need" || { tap_diag "$v=$(rdc_line_kv $v) < $need"; ok=1; }
	done
	[ "$(rdc_line_kv qp_peak qp_peak)" = $((2 * CLIENTS)) ] || ok=1
	[ "$(rdc_line_kv qp_peak qp_peak_rts)" = $((2 * CLIENTS)) ] || ok=1
	[ "$(rdc_line_kv qp_peak qp_left)" = 0 ] || ok=1
	j=$(jq -r '.points[0] | "\(.wire.delta.server.sent_pkts) \(.qp.states.peak.RTS) \(.qp.left) \([.series[] | select(.wire)] | length)"' \
		"$W/clean.json" 2>/dev/null)
	tap_kv clean_json "sent_pkts rts_peak left wire_samples = $j"
	read -r v rts left ns <<<"$j"
	[ "$v" = "$(rdc_line_kv 'wire_srv' sent_pkts)" ] && [ "$rts" = $((2 * CLIENTS)) ] &&
		[ "$left" = 0 ] && ge "$ns" 1 || ok=1
	if [ "$ok" = 0 ]; then
		tap_ok "clean rc point: packets >= $need per side, $((2 * CLIENTS)) QPs RTS at peak, none left"
	else
		grep -E '^ *not ok|cause=|why' "$OUT" | head -n 6 | sed 's/^ */# /'
		tail -n 4 "$W/clean.err" | sed 's/^/# stderr: /'
		tap_fail "clean rc point: packets >= $need per side, $((2 * CLIENTS)) QPs RTS at peak, none left"
	fi
}

t_linkdown() {
	local ok=0 pid run n=0 ns veth cause rc

	OUT=$W/down.tap
	log "link down: $RDMACAP run --transport rc --clients 4 --msgs 400 --think-ms 10"
	rdc_timeout 300 "$RDMACAP" run --transport rc --topology pair --clients 4 --msgs 400 \
		--think-ms 10 --json "$W/down.json" >"$OUT" 2>"$W/down.err" &
	pid=$!
	# traffic under way: a few hundred packets on the wire (400 round trips per
	# client make ~3,200 on each device)
	while [ "$(sent_pkts)" -lt 300 ] && kill -0 "$pid" 2>/dev/null && [ $n -lt 1200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	run=$(grep -m1 -oE '^# run=[0-9a-f]+' "$OUT" | cut -d= -f2)
	ns=rdc$run-c1 veth=rdc${run}c1
	if ip -n "$ns" link set "$veth" down; then
		tap_kv down_link "$ns/$veth down at sent_pkts=$(sent_pkts), $((n / 10)).$((n % 10)) s in"
	else
		tap_kv down_link "ip -n $ns link set $veth down failed"
		ok=1
	fi
	wait "$pid"
	rc=$?
	tap_kv down_exit "$rc"
	grep -E '^ *# (wire_|qp_|cause=|first_failure|failures)' "$OUT" | cut -c1-400 | sed 's/^ *//'
	cause=$(grep -m1 -E '^ *# cause=' "$OUT")
	[ "$rc" != 0 ] || ok=1
	[[ $cause == *"wire: "* ]] || ok=1
	[[ $cause =~ retry\ exceeded|retransmissions|send\ errors|link\ down ]] || ok=1
	ge "$(rdc_line_kv wire_srv sent_pkts)" 300 || ok=1
	[ "$(rdc_line_kv qp_peak qp_left)" = 0 ] || ok=1
	if [ "$ok" = 0 ]; then
		tap_ok "link down during traffic: the cause names what the counters saw, no QP left"
	else
		tail -n 4 "$W/down.err" | sed 's/^/# stderr: /'
		tap_fail "link down during traffic: the cause names what the counters saw, no QP left"
	fi
}

main() {
	rdc_rxe_suite counters rdma_rxe rdma jq
	tap_plan 2
	tap_kv kernel "$(uname -r)"
	t_clean
	t_linkdown
}

main
tap_finished
