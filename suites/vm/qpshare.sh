#!/bin/bash
# SPDX-License-Identifier: MIT
#
# qpshare.sh: rc --qp-share K on real Soft-RoCE, inside the rxe VM, driven
# through build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/qpshare.sh
#
#   1-2 run --qp-share 4 --agents 2 --clients N (N of QPS_CLIENTS): 100%, every
#       round trip verified (payload, and the client id the echo carries), the
#       server's device delta exactly 8 QPs, 16 CQs, 16 MRs (K per agent, not
#       one per client), qps=8 and clients_per_qp=N/8, back to the baseline
#   3   limit moved by K: vm.max_map_count lowered to QPS_MAPS and one client
#       agent of QPS_LIMIT_N clients. Without --qp-share the agent's
#       ibv_create_* fail with ENOMEM after about (QPS_MAPS - base) / 4
#       connections and the cause names vm.max_map_count; with --qp-share 16
#       the same point passes 100% on 16 QPs. The sysctl is put back.
#   4   the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   QPS_CLIENTS   client counts of tests 1-2 ("10 100")
#   QPS_MAPS      vm.max_map_count of test 3 (1200: about 260 connections)
#   QPS_LIMIT_N   clients of test 3 (500)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

RDC_TIMEOUT=600
read -ra COUNTS <<<"${QPS_CLIENTS:-10 100}"
MAPS=${QPS_MAPS:-1200}
LN=${QPS_LIMIT_N:-500}
K=4 AG=2

RDC_POINT_SHOW='connected|msgs|srv_dev|cause|why|capped'

# share_run NAME ARGS...: rdmacap run --transport rc ARGS on the pair topology (rdc_point)
share_run() {
	rdc_point "$W/$1" run --transport rc --topology pair --msgs 4 "${@:2}"
}

rdc_rxe_suite qpshare-suite ""
OLD_MAPS=$(sysctl -n vm.max_map_count)
trap 'sysctl -qw vm.max_map_count="$OLD_MAPS"; rm -rf "$W"' EXIT
tap_plan $((${#COUNTS[@]} + 2))
BASE=$(rdc_res)
Q=$((K * AG))

for n in "${COUNTS[@]}"; do
	share_run "s$n" --qp-share $K --agents $AG --clients "$n"
	why=
	[ "$RC" = 0 ] || why+=" exit $RC"
	[ "$(rdc_kv connected)" = "$n" ] || why+=" connected=$(rdc_kv connected)"
	[ "$(rdc_kv verified)" = $((n * 4)) ] || why+=" verified=$(rdc_kv verified)"
	[ "$(rdc_kv qps)" = $Q ] || why+=" qps=$(rdc_kv qps)"
	for kv in qp=$Q cq=$((2 * Q)) mr=$((2 * Q)); do
		rdc_fig_is srv_dev_delta "${kv%=*}" "${kv#*=}" || why+=" server delta not $kv"
	done
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	if [ -z "$why" ]; then
		tap_ok "qp-share $K x $AG agents, $n clients: 100%, verified, server $Q QPs/$((2 * Q)) CQs/$((2 * Q)) MRs, clients_per_qp=$(rdc_kv clients_per_qp)"
	else
		tap_fail "qp-share $K x $AG agents, $n clients" "$why"
	fi
done

why=
sysctl -qw vm.max_map_count="$MAPS" || why+=" sysctl"
tap_kv vm.max_map_count "$MAPS (was $OLD_MAPS)"
share_run perconn --agents 1 --clients "$LN" --timeout 120
c0=$(rdc_kv connected) cause0=$(rdc_kv cause)
[ "$RC" = 1 ] || why+=" per-conn exit $RC"
[ "${c0:-0}" -lt "$LN" ] || why+=" per-conn connected all $LN"
[[ $cause0 == *ENOMEM*vm.max_map_count* ]] || why+=" per-conn cause '$cause0'"
share_run shared --agents 1 --clients "$LN" --qp-share 16 --timeout 120
c16=$(rdc_kv connected)
[ "$RC" = 0 ] && [ "$c16" = "$LN" ] || why+=" qp-share 16: exit $RC connected=$c16"
rdc_fig_is srv_dev_delta qp 16 || why+=" qp-share 16: server qp delta not 16"
sysctl -qw vm.max_map_count="$OLD_MAPS"
tap_kv limit_per_conn "$c0 of $LN ($cause0)"
tap_kv limit_qp_share_16 "$c16 of $LN"
if [ -z "$why" ]; then
	tap_ok "vm.max_map_count=$MAPS, 1 agent, $LN clients: per-conn stops at $c0 (vm.max_map_count), --qp-share 16 holds all $LN"
else
	tap_fail "limit moved by --qp-share" "$why"
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
