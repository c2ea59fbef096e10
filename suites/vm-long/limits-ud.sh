#!/bin/bash
# SPDX-License-Identifier: MIT
#
# limits-ud.sh: the address-handle limit of --transport ud on real Soft-RoCE,
# inside the rxe VM, driven through build/rdmacap as a user runs it:
#
#   make vm-limits-ud    (vm/run --mem 6G --timeout 9000 --share $PWD -- suites/vm-long/limits-ud.sh)
#
# Not in make check: 16,500 + 33,000 + 33,000 clients are half an hour or
# more under TCG (suites/vm-long/ is not picked up by suites/vm/run-in-vm).
#
#   1 limit --ah cache: a server that keeps one AH per client stops at the
#     device's max_ah (rxe: 32,767). The search passes LUD_START and, doubling,
#     misses LUD_MAX (2 x LUD_START, above max_ah); at the missed point exactly
#     (clients - max_ah) clients fail, in ibv_create_ah at the server, and the
#     cause names max_ah. Every point's round trips are verified: --workers
#     is left to rdmacap, which keeps every send of the round trips in flight
#     within the server's receive slots (common/opt.h opt_ud_workers)
#   2 the knob moved: run --ah peer at LUD_MAX clients (one AH per GID the
#     clients come from, shared by them: one on the pair topology): 100%, every
#     payload verified, none lost, one AH held and made
#   3 the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout, figures as "# key=value"; exit 0 pass, 1 fail, 4 skip.
#
#   LUD_START  the point the search must pass (16500)
#   LUD_MAX    the point that must miss with --ah cache and pass with --ah peer
#              (33000, twice LUD_START so that the search's doubling lands on
#              it); the two must lie on either side of the device's max_ah
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

START=${LUD_START:-16500}
MAX=${LUD_MAX:-33000}
W=$(mktemp -d /tmp/limits-ud.XXXXXX)
trap 'rm -rf "$W"' EXIT

rdc_need rdc_have_root
rdc_need rdc_have_rxe

log() { echo "limits-ud.sh: $*" >&2; }
# lu_run NAME SECS ARGS...: rdmacap ARGS with a deadline; TAP in $W/NAME.tap
# (OUT), figures in RDC_KV, status in RC
lu_run() {
	local name=$1 secs=$2 t0=$SECONDS
	shift 2
	OUT=$W/$name.tap
	log "$name: $*"
	rdc_timeout "$secs" "$RDMACAP" "$@" >"$OUT" 2>"$W/$name.err"
	RC=$?
	rdc_kv_parse <"$OUT"
	tap_kv "${name}_cmd" "rdmacap $*"
	tap_kv "${name}_exit" "$RC"
	tap_kv "${name}_wall_s" "$((SECONDS - t0))"
}
tap_init
tap_plan 3
BASE=$(rdc_res)
MAX_AH=$(ibv_devinfo -v 2>/dev/null | awk '/max_ah:/ { print $2; exit }')
MAX_AH=${MAX_AH:-32767}
tap_kv max_ah "$MAX_AH"
tap_kv mem_total_kb "$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"

# 1: the cache's limit and its cause
ok=0
# the connect phase of 30,000 clients took over the default 360 s deadline
# under TCG on a loaded host (13,181 connected by then, 36/s): the deadline
# must not be what stops the search
lu_run cache 5400 limit --transport ud --ah cache --topology pair --start "$START" \
	--max "$MAX" --steps 2 --msgs 1 --threshold 100 --timeout 2400
l100=$(grep -m1 'limit at 100% success' "$OUT" | grep -oE ': [0-9]+ clients' | grep -oE '[0-9]+')
cause=$(grep -m1 -oE 'cause=.*' "$OUT" | cut -c7-)
points=$(sed -nE 's/^ *(not )?ok [0-9]+ limit clients=([0-9]+) connected=([0-9]+) .*/\2:\3/p' "$OUT" | tr '\n' ' ')
tap_kv cache_limit_100 "${l100:-none}"
tap_kv cache_cause "${cause:-none}"
tap_kv cache_points "$points"
grep -E '^ +# (srv_ah|failures|first_failure)' "$OUT" | sed 's/^ *//' | head -n 6
[ "$RC" = 0 ] || ok=1
[ "${l100:-0}" -ge "$START" ] && [ "${l100:-0}" -le "$MAX_AH" ] || ok=1
[[ $cause == *ibv_create_ah*max_ah* ]] || ok=1
# the missed point: max_ah clients connected, every other one refused
[[ " $points" == *" $MAX:$MAX_AH "* ]] || ok=1
if [ $ok = 0 ]; then
	tap_ok "ud --ah cache: limit $l100 (>= $START), at $MAX clients exactly $MAX_AH connect; cause: $cause"
else
	tap_fail "ud --ah cache limit" "exit $RC limit=${l100:-none} points=$points cause=${cause:-none}"
fi

# 2: the same point with one AH per peer GID
ok=0
lu_run peer 3600 run --transport ud --ah peer --topology pair --clients "$MAX" --msgs 1 \
	--timeout 1200
grep -E '^ +# (connected|msgs|lat_us|srv_rss|srv_ah|srv_dev_delta|cli_dev_delta)' "$OUT" | sed 's/^ *//'
[ "$RC" = 0 ] || ok=1
[ "$(rdc_kv connected)" = "$MAX" ] || ok=1
[ "$(rdc_kv verified)" = "$MAX" ] || ok=1
[ "$(rdc_kv lost)" = 0 ] || ok=1
[ "$(rdc_kv srv_ah)" = 1 ] || ok=1
[ "$(rdc_kv srv_ah_made)" = 1 ] || ok=1
if [ $ok = 0 ]; then
	tap_ok "ud --ah peer: $MAX clients (past max_ah $MAX_AH) 100%, verified, none lost; 1 AH for them all"
else
	tap_fail "ud --ah peer at $MAX clients" "exit $RC connected=$(rdc_kv connected) verified=$(rdc_kv verified) lost=$(rdc_kv lost) srv_ah=$(rdc_kv srv_ah) srv_ah_made=$(rdc_kv srv_ah_made)"
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
