#!/bin/bash
# SPDX-License-Identifier: MIT
#
# memfloor.sh: --mem-floor on real Soft-RoCE, inside the rxe VM, driven through
# build/rdmacap as a user runs it:
#
#   vm/run --mem 3G --share $PWD -- suites/vm/memfloor.sh
#
#   1 run: the floor set MF_EAT MiB below the MemAvailable read right before,
#     and more rc clients than that much memory holds (~47 KB a connection):
#     rdmacap ends the point, named "memory: MemAvailable fell to N KiB (floor
#     F KiB) with C of N connected; B bytes per connection ...", with C below
#     N and MemAvailable at the end below the floor; the RDMA counters back at
#     the baseline; the JSON holds the point (memory.floor_hit_avail_kb).
#     While it runs: rdmacap's oom_score_adj is -1000, an agent's 0.
#   2 limit with the same floor (only with MF_TESTS="run limit": not yet run in
#     the VM): the points the floor ends are failures and the search bisects
#     below them; the cause is memory, the limit below the point that ended
#   3 the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   MF_EAT      MiB between MemAvailable and the floor (200)
#   MF_CLIENTS  clients of test 1, and --max of test 2 (12000: ~560 MB)
#   MF_TESTS    of "run limit" (run); the others SKIP
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

W=$(mktemp -d /tmp/memfloor-suite.XXXXXX)
trap 'rdc_bg_kill; rm -rf "$W"' EXIT
RDC_TIMEOUT=900
EAT=${MF_EAT:-200}
N=${MF_CLIENTS:-12000}
TESTS=" ${MF_TESTS:-run} "

rdc_need rdc_have_root
rdc_need rdc_have_rxe

RDC_POINT_SHOW='connected|cause|why|mem_|limit'

# floor: MemAvailable now, less EAT, in MiB
floor() {
	echo $(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 - EAT))
}

# the oom_score_adj of rdmacap PID $1 and of its first agent, once one runs
oom_adj() {
	local n agent

	for ((n = 0; n < 300; n++)); do
		agent=$(pgrep -P "$1" -x rdmacap-agent | head -n 1)
		[ -n "$agent" ] && break
		sleep 0.1
	done
	[ -n "$agent" ] || return 1
	echo "$(cat "/proc/$1/oom_score_adj") $(cat "/proc/$agent/oom_score_adj")"
}

t_run() {
	local f why='' adj c hit

	f=$(floor)
	tap_kv run_floor_mib "$f (MemAvailable less $EAT MiB)"
	OUT=$W/run.tap
	rdc_bg sh -c "exec '$RDMACAP' run --transport rc --topology pair --clients $N --agents 3 \
		--msgs 2 --mem-floor $f --json '$W/run.json' >'$OUT' 2>'$W/run.err'"
	adj=$(oom_adj "$RDC_BG_PID") || adj="no agent seen"
	wait "$RDC_BG_PID"
	RC=$?
	RDC_BG_PIDS=()
	rdc_kv_parse <"$OUT"
	grep -E "^ +# ($RDC_POINT_SHOW)" "$OUT" | sed 's/^ *//'
	tap_kv oom_score_adj "rdmacap agent: $adj"
	[ "$adj" = "-1000 0" ] || why+=" oom_score_adj '$adj'"
	c=$(rdc_kv connected)
	[ "$RC" = 1 ] || why+=" exit $RC"
	[[ $(rdc_kv cause) == "memory: MemAvailable fell to "*" KiB (floor $((f * 1024)) KiB) with "*" of $N connected; "*" bytes per connection in use (user "*", kernel "*")"* ]] ||
		why+=" cause '$(rdc_kv cause)'"
	[ "${c:-0}" -lt "$N" ] || why+=" connected $c"
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	hit=$(jq -r '.points[0].memory.floor_hit_avail_kb // 0' "$W/run.json" 2>/dev/null)
	[ "${hit:-0}" -gt 0 ] && [ "$hit" -lt $((f * 1024)) ] || why+=" JSON floor_hit_avail_kb '$hit'"
	if [ -z "$why" ]; then
		tap_ok "run, floor MemAvailable-$EAT MiB, $N rc clients: ended at $c connected, named memory, counters back, in the JSON; oom_score_adj rdmacap -1000, agent 0"
	else
		tail -n 3 "$W/run.err" | sed 's/^/# stderr: /'
		tap_fail "run ended by the memory floor" "$why"
	fi
}

t_limit() {
	local f why='' lim

	f=$(floor)
	tap_kv limit_floor_mib "$f (MemAvailable less $EAT MiB)"
	rdc_point "$W/limit" limit --transport rc --topology pair --agents 3 --msgs 2 \
		--start $((N / 8)) --max "$N" --threshold 100 --steps 7 --mem-floor "$f"
	lim=$(rdc_kv limit)
	[[ $(rdc_kv cause) == "memory: MemAvailable fell to "* ]] || why+=" cause '$(rdc_kv cause)'"
	[ "${lim:-0}" -ge $((N / 8)) ] && [ "$lim" -lt "$(rdc_kv first_below)" ] ||
		why+=" limit '$lim' first_below '$(rdc_kv first_below)'"
	grep -qE '^ +not ok .*RDMA resources back to baseline' "$OUT" && why+=" a point leaked"
	if [ -z "$why" ]; then
		tap_ok "limit, floor MemAvailable-$EAT MiB: $lim clients, the first below ($(rdc_kv first_below)) ended by memory"
	else
		tap_fail "limit below the memory floor" "$why"
	fi
}

tap_init
tap_plan 3
BASE=$(rdc_res)
for t in run limit; do
	if [[ $TESTS == *" $t "* ]]; then
		"t_$t"
	else
		tap_skip "$t" "not in MF_TESTS"
	fi
done
rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
