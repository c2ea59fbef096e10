#!/bin/bash
# SPDX-License-Identifier: MIT
#
# loops.sh: --server-threads on the rc and uc event servers, inside the rxe VM,
# driven through build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/loops.sh
#
#   1   rc --cm rdmacm --server-threads 2, LOOPS_CLIENTS clients: 100%, verified,
#       srv_loops lists 2 loops that together accepted every client and each at
#       least a third of them (loop 0 hands the requests over in turn), the
#       server at 2 threads, back to the baseline
#   2   uc --cm rdmacm --server-threads 2: the same (the uc QP is ours, moved to
#       RTS by hand on either loop)
#   3   rc --cm oob-tls --server-threads 2 --agents 4: 100%, 2 loops listed and
#       their counts sum to the clients (SO_REUSEPORT picks the loop of each
#       session: no share is promised)
#   4   --server-threads 1: no srv_loops (one loop has nothing to compare)
#   5   the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   LOOPS_CLIENTS   clients of tests 1-4 (90)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

RDC_TIMEOUT=300
N=${LOOPS_CLIENTS:-90}
RDC_POINT_SHOW='connected|msgs|srv_|cause|why'

# loops_sum: "loops sum" of srv_loops (accepted:ms,...), or "0 0" without one
loops_sum() {
	rdc_kv srv_loops 2>/dev/null | tr ',' '\n' |
		awk -F: 'NF == 2 { n++; s += $1; if (!m || $1 < m) m = $1 } END { print n + 0, s + 0, m + 0 }'
}

# loops_check DESC MIN ARGS...: one point; 2 loops summing to N, each >= MIN
loops_check() {
	local desc=$1 min=$2 why n s m
	shift 2
	rdc_point "$W/$desc" run --topology pair --msgs 4 --clients "$N" "$@"
	why=$(rdc_clean_why)
	read -r n s m <<<"$(loops_sum)"
	[ "$n" = 2 ] || why+=" loops=$n"
	[ "$s" = "$N" ] || why+=" accepted_sum=$s"
	[ "$m" -ge "$min" ] || why+=" fewest=$m (< $min)"
	[ "$(rdc_kv srv_threads)" = 2 ] || why+=" srv_threads=$(rdc_kv srv_threads)"
	grep -q "RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	if [ -z "$why" ]; then
		tap_ok "$desc: 100%, verified, srv_loops=$(rdc_kv srv_loops)"
	else
		tap_fail "$desc" "$why"
	fi
}

rdc_rxe_suite loops-suite ""
trap 'rm -rf "$W"' EXIT
tap_plan 5
BASE=$(rdc_res)

loops_check "rc rdmacm 2 loops" $((N / 3)) --transport rc --cm rdmacm --server-threads 2
loops_check "uc rdmacm 2 loops" $((N / 3)) --transport uc --cm rdmacm --server-threads 2
loops_check "rc oob-tls 2 loops, 4 agents" 0 --transport rc --cm oob-tls --server-threads 2 \
	--agents 4

rdc_point "$W/one" run --topology pair --msgs 4 --clients "$N" --transport rc --cm rdmacm
why=$(rdc_clean_why)
[ -z "$(rdc_kv srv_loops 2>/dev/null)" ] || why+=" srv_loops=$(rdc_kv srv_loops)"
if [ -z "$why" ]; then tap_ok "rc rdmacm 1 loop: 100%, no srv_loops"; else
	tap_fail "rc rdmacm 1 loop" "$why"; fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
