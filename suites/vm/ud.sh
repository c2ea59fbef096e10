#!/bin/bash
# SPDX-License-Identifier: MIT
#
# ud.sh: --transport ud on real Soft-RoCE, inside the rxe VM, driven through
# build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/ud.sh
#
#   1-2 run --transport ud --clients 100 and 1000 on the pair topology: 100%,
#       every round trip's payload verified, lost/retried/late reported, the
#       server's device delta exactly 1 QP, 1 CQ, 1 MR whatever the clients
#       (one UD QP serves them all), one AH per client on the server (srv_ah),
#       one QP per client on the client side, counters back at the baseline
#   3-4 the same over --cm rdmacm (RDMA_PS_UDP: the REQ record rides the SIDR
#       REQ, the server's QPN and Q_Key come back with ESTABLISHED): 100%,
#       verified, one AH per client on the server, the server's cm_ids only
#       its listener (the request ids go once answered), baseline after
#   5   --ah wc at the largest count (--workers 4 --msgs 2): 100%, verified;
#       AHs made per reply (srv_ah_made >= round trips), fewer held at once
#       than clients
#   6   --ah lru --ah-max 32: 200 clients through at most 32 AHs (least recently
#       used out), every round trip verified, none lost, more than 200 AHs made
#   7   --ah peer on star:2 (two client hosts, two GIDs): the largest count,
#       100%, verified, none lost, exactly 2 AHs made and held (one per GID
#       the clients come from, shared by them all), 1 QP/CQ/MR, baseline after
#   8   --size = active MTU (1024 on the veth) minus the 40-byte GRH: passes
#   9   --size one byte more: the agents refuse it at start, named (EMSGSIZE
#       from ibv_query_port), nothing connects
#   10-11 --server-threads 2, 40 clients, 20 round trips each, over oob-tls
#       (--agents 8: SO_REUSEPORT spreads the 8 sessions, all on one loop
#       with odds of 1 in 128) and over rdmacm (--agents 2: loop 0 hands the
#       requests to the loops in turn): 100%, every round trip verified, none
#       lost, srv_loops lists 2 loops that together admitted every client and
#       each some, the server's device delta 2 QPs (one per loop), one AH per
#       client
#   12  the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   UD_CLIENTS   the client counts of tests 1-2 ("100 1000")
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

RDC_TIMEOUT=900
read -ra COUNTS <<<"${UD_CLIENTS:-100 1000}"
MTU=1024
GRH=40

RDC_POINT_SHOW='connected|msgs|lat_us|srv_|cli_dev|cause'

# ud_run NAME ARGS...: rdmacap run --transport ud ARGS on the pair topology (rdc_point)
ud_run() {
	rdc_point "$W/$1" run --transport ud --topology pair "${@:2}"
}

rdc_rxe_suite ud-suite ""
tap_plan $((2 * ${#COUNTS[@]} + 8))
BASE=$(rdc_res)

# ud_one_qp: why grows unless the server's device delta was 1 QP, 1 CQ and
# 1 MR whatever the clients, and the counters came back to the baseline
ud_one_qp() {
	for k in qp cq mr; do
		rdc_fig_is srv_dev_delta $k 1 || why+=" server $k delta not 1"
	done
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
}

# ud_check N CM: the verdict of a run of N clients over CM
ud_check() {
	local n=$1 cm=$2 why

	why=$(rdc_carried_why "$n")
	rdc_kv retried >/dev/null || why+=" no retried figure"
	[ "$(rdc_kv srv_ah)" = "$n" ] || why+=" srv_ah=$(rdc_kv srv_ah)"
	ud_one_qp
	rdc_fig_is cli_dev_delta qp "$n" || why+=" client qp delta not $n"
	if [ "$cm" = rdmacm ]; then
		rdc_fig_is srv_dev_delta cm_id 1 || why+=" server cm_id delta not 1 (the listener)"
	fi
	if [ -z "$why" ]; then
		tap_ok "ud --cm $cm $n clients: 100%, payloads verified, server 1 QP/CQ/MR and $n AHs, back to baseline"
	else
		tap_fail "ud --cm $cm $n clients" "$why"
	fi
}

for cm in oob-tls rdmacm; do
	for n in "${COUNTS[@]}"; do
		ud_run "$cm-c$n" --cm "$cm" --clients "$n"
		ud_check "$n" "$cm"
	done
done

# Each reply pays an ibv_create_ah (2.5 to 13 ms under TCG, with the host's
# load): 32 round trips in flight outrun the server's first 100 ms resend
# timeout, every resend costs another AH, and round trips get lost (measured:
# 1,000 lost of 10,000 at 78 replies/s). 4 in flight stay under it.
n=${COUNTS[-1]}
ud_run wc --clients "$n" --ah wc --workers 4 --msgs 2 --timeout 300
why=
[ "$RC" = 0 ] || why+=" exit $RC"
[ "$(rdc_kv verified)" = "$(rdc_kv expected)" ] || why+=" verified=$(rdc_kv verified)"
[ "$(rdc_kv srv_ah_made)" -ge "$(rdc_kv expected)" ] 2>/dev/null || why+=" srv_ah_made=$(rdc_kv srv_ah_made)"
# fewer held at once than clients: made per reply, not kept per client
[ "$(rdc_kv srv_ah)" -lt "$n" ] 2>/dev/null || why+=" srv_ah=$(rdc_kv srv_ah)"
if [ -z "$why" ]; then
	tap_ok "ud --ah wc $n clients: 100%, verified, $(rdc_kv srv_ah_made) AHs made per reply, $(rdc_kv srv_ah) held at most"
else
	tap_fail "ud --ah wc $n clients" "$why"
fi

# --ah lru: 200 clients through at most 32 AHs, 16 round trips in flight per agent
ud_run lru --clients 200 --msgs 3 --ah lru --ah-max 32 --workers 16
why=
[ "$RC" = 0 ] || why+=" exit $RC"
[ "$(rdc_kv verified)" = 600 ] || why+=" verified=$(rdc_kv verified)"
[ "$(rdc_kv lost)" = 0 ] || why+=" lost=$(rdc_kv lost)"
[ "$(rdc_kv srv_ah)" = 32 ] || why+=" srv_ah=$(rdc_kv srv_ah)"
[ "$(rdc_kv srv_ah_made)" -gt 200 ] 2>/dev/null || why+=" srv_ah_made=$(rdc_kv srv_ah_made)"
grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
if [ -z "$why" ]; then
	tap_ok "ud --ah lru --ah-max 32: 200 clients, 600 round trips verified, at most 32 AHs, $(rdc_kv srv_ah_made) made"
else
	tap_fail "ud --ah lru --ah-max 32" "$why"
fi

# --ah peer: an AH names a port (GID), not a QP; 2 client hosts, 2 AHs
ud_run peer --clients "$n" --msgs 2 --ah peer --topology star:2
why=
[ "$RC" = 0 ] || why+=" exit $RC"
[ "$(rdc_kv connected)" = "$n" ] || why+=" connected=$(rdc_kv connected)"
[ "$(rdc_kv verified)" = $((2 * n)) ] || why+=" verified=$(rdc_kv verified)"
[ "$(rdc_kv lost)" = 0 ] || why+=" lost=$(rdc_kv lost)"
[ "$(rdc_kv srv_ah)" = 2 ] || why+=" srv_ah=$(rdc_kv srv_ah)"
[ "$(rdc_kv srv_ah_made)" = 2 ] || why+=" srv_ah_made=$(rdc_kv srv_ah_made)"
ud_one_qp
if [ -z "$why" ]; then
	tap_ok "ud --ah peer star:2 $n clients: $((2 * n)) round trips verified, 2 AHs (one per client host), server 1 QP/CQ/MR"
else
	tap_fail "ud --ah peer star:2 $n clients" "$why"
fi

ud_run fit --clients 10 --size $((MTU - GRH))
if [ "$RC" = 0 ] && [ "$(rdc_kv verified)" = 100 ]; then
	tap_ok "ud --size $((MTU - GRH)) (MTU $MTU minus the GRH): 100 round trips verified"
else
	tap_fail "ud --size $((MTU - GRH))" "exit $RC verified=$(rdc_kv verified)"
fi

ud_run big --clients 2 --size $((MTU - GRH + 1))
if [ "$RC" = 1 ] && grep -q "EMSGSIZE" "$OUT" "$W/big.err" &&
	grep -q "does not fit one datagram" "$W/big.err"; then
	tap_ok "ud --size $((MTU - GRH + 1)): the agents refuse it at start, EMSGSIZE named"
else
	tap_fail "ud --size $((MTU - GRH + 1))" "exit $RC; $(grep -m1 -E 'why|cause' "$OUT")"
fi

# ud_loops CM ARGS...: --server-threads 2 over CM, each loop admitting some
ud_loops() {
	local cm=$1 why n s m
	shift
	ud_run "loops-$cm" --cm "$cm" --server-threads 2 --clients 40 --msgs 20 "$@"
	why=$(rdc_carried_why 40)
	[ "$(rdc_kv verified)" = 800 ] || why+=" verified=$(rdc_kv verified)"
	read -r n s m <<<"$(rdc_kv srv_loops 2>/dev/null | tr ',' '\n' |
		awk -F: 'NF == 2 { n++; s += $1; if (!n1++ || $1 < m) m = $1 }
			 END { print n + 0, s + 0, m + 0 }')"
	[ "$n" = 2 ] || why+=" loops=$n"
	[ "$s" = 40 ] || why+=" admitted_sum=$s"
	[ "$m" -gt 0 ] || why+=" a loop admitted none"
	[ "$(rdc_kv srv_ah)" = 40 ] || why+=" srv_ah=$(rdc_kv srv_ah)"
	rdc_fig_is srv_dev_delta qp 2 || why+=" server qp delta not 2"
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	if [ -z "$why" ]; then
		tap_ok "ud --cm $cm --server-threads 2 $*: 800 round trips verified, srv_loops=$(rdc_kv srv_loops), a QP per loop"
	else
		tap_fail "ud --cm $cm --server-threads 2" "$why"
	fi
}

ud_loops oob-tls --agents 8
ud_loops rdmacm --agents 2

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
