#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mr.sh: --mr shared on real Soft-RoCE, inside the rxe VM, driven through
# build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/mr.sh
#
# Each case is one `rdmacap run --mr shared` of MR_CLIENTS clients over
# MR_AGENTS client agents on the pair topology:
#   rc send, write, read, atomic over oob-tls; rc send over rdmacm; uc send;
#   rc send with the thread server
# and each must be 100%, every round trip verified, none lost, the server's
# device delta N QPs but at most 2 MRs (one process; its first chunks hold
# 64 + 128 slices: agents/rc/rc.h), the clients' at most 2 per agent, the
# counters back at the baseline; atomic: the server's counters sum to the round
# trips issued. Then the default (--mr per-conn) at the same N: 2N server MRs,
# the figure shared replaces. The RDMA counters after the suite equal those
# before it.
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   MR_CLIENTS   connections of a case (40, at most 192: two chunks)
#   MR_AGENTS    client agents (2)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

N=${MR_CLIENTS:-40}
A=${MR_AGENTS:-2}
RDC_TIMEOUT=300
CASES=("--op send" "--op write" "--op read" "--op atomic" "--op send --cm rdmacm"
	"--transport uc --op send" "--op send --server-model thread")

# mr_run NAME ARGS...: rdmacap run ARGS (rc unless they say uc) on the pair topology
# (rdc_point)
mr_run() {
	rdc_point "$W/$1" run --topology pair --clients "$N" --agents "$A" --transport rc "${@:2}"
}

# mr_check MAXSRV MAXCLI: why the last point is not N connections carried with at
# most MAXSRV server MRs and MAXCLI client MRs, back to baseline ("": it is)
mr_check() {
	local why smr cmr

	why=$(rdc_carried_why "$N")
	rdc_fig_is srv_dev_delta qp "$N" || why+=" server qp delta not $N"
	smr=$(rdc_line_kv srv_dev_delta mr)
	cmr=$(rdc_line_kv cli_dev_delta mr)
	[ -n "$smr" ] && [ "$smr" -le "$1" ] || why+=" server mr delta $smr > $1"
	[ -n "$cmr" ] && [ "$cmr" -le "$2" ] || why+=" client mr delta $cmr > $2"
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	echo "$why"
}

rdc_rxe_suite mr-suite ""
tap_plan $((${#CASES[@]} + 2))
BASE=$(rdc_res)

for c in "${CASES[@]}"; do
	# shellcheck disable=SC2086 # c is a list of words
	mr_run "$(echo "$c" | tr -dc "[:lower:]")" --mr shared $c
	why=$(mr_check 2 $((2 * A)))
	case $c in *atomic*)
		[ "$(rdc_kv srv_atomics)" = "$(rdc_kv msgs)" ] ||
			why+=" srv_atomics=$(rdc_kv srv_atomics) msgs=$(rdc_kv msgs)" ;;
	esac
	smr=$(rdc_line_kv srv_dev_delta mr)
	if [ -z "$why" ]; then
		tap_ok "--mr shared $c, $N clients: 100%, verified, server $N QPs/$smr MRs, back to baseline"
	else
		tap_fail "--mr shared $c" "$why"
	fi
done

mr_run perconn --op send
why=$(mr_check $((2 * N)) $((2 * N)))
rdc_fig_is srv_dev_delta mr $((2 * N)) || why+=" server mr delta not $((2 * N))"
if [ -z "$why" ]; then
	tap_ok "--mr per-conn, $N clients: server $((2 * N)) MRs, the figure shared replaces"
else
	tap_fail "--mr per-conn" "$why"
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
