#!/bin/bash
# SPDX-License-Identifier: MIT
#
# limits-rc.sh: the limit tests of suites/limits.bats on rc (Soft-RoCE), inside the
# rxe VM, driven through build/rdmacap as a user runs it:
#
#   vm/run --timeout 1500 -- suites/vm/limits-rc.sh
#
#   1 capacity ramp 10,50,100,200: every point 100%; the seed table from `rdmacap
#     report` has QPs/CQs/MRs = 1/2/2 x clients on every row
#   2 limit at 100% and 95% with its cause: vm.max_map_count lowered (restored after)
#     and one client agent, so the agent's ibv_create_* fail with ENOMEM after about
#     (max_map_count - its base maps) / 4 connections; the server is spread over
#     processes by the orchestrator (# capped=...) and survives
#   3 storm with rdmacm: 100%, setup rate and first-message figures; the
#     orchestrator raises net.rdma_ucm.max_backlog for the run and restores it
#     (lowered here first so that the raise is needed)
#   4 storm beside another run: a second pair is up, its client's neighbour entry
#     for the same server address flips between two MACs every 50 ms; the storm's
#     rdmacm clients all connect (rdma_cm ends every RoCE id whose link's ifindex
#     and destination match an updated neighbour, in any namespace: each run's
#     veths have ifindexes of their own, netns/names.c)
#   5 cold neighbour: on a fresh pair (no neighbour entry for the server yet) one
#     rdmacm connection, and a --cm-order phased storm of 200, resolve every
#     address (and set up every connection) well inside rdma_resolve_addr's timeout (DL_CM_STEP_MS, 10 s): the
#     kernel wakes the first request on a cold neighbour only at its timeout, and
#     the agent's first address is asked with a short one (agents/rc/rc_client_neigh.c)
#   6 device contexts: 50 client agents, one device context each
#   7 MR registration until failure: RLIMIT_MEMLOCK lowered, CAP_IPC_LOCK dropped;
#     ibv_reg_mr fails, the cause names RLIMIT_MEMLOCK
#   8 leak check: after every test the RDMA counters (rdma -j resource show) are
#     back at the suite's baseline and no rdc namespace, link or rxe link is left.
#     A test that leaks fails (its own result, and this one); `rdmacap down` then
#     cleans up so the next test starts clean.
#
# TAP 13 on stdout, figures as "# key=value"; exit 0 pass, 1 fail, 4 skip.
#
#   LRC_MAP_COUNT   vm.max_map_count for test 2 (6000: one process then holds
#                   about 1,460 connections at 4 maps each)
#   LRC_MEMLOCK     RLIMIT_MEMLOCK in bytes for test 5 (8 MiB)
#   LRC_MR_SIZE     --size of test 5 (1 MiB)
#   LRC_TESTS       the tests to run, of "ramp limit storm beside cold ctx mr" (all); the
#                   others SKIP
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

MAPS=${LRC_MAP_COUNT:-6000}
MEMLOCK=${LRC_MEMLOCK:-8388608}
MR_SIZE=${LRC_MR_SIZE:-1048576}
W=
BASE=
LEAKED=()
OUT=
ERR=
RESTORE=()	# "sysctl=value" to put back at exit

log() { echo "limits-rc.sh: $*" >&2; }

# --- running rdmacap -------------------------------------------------------------

# rc_run NAME SECS CMD...: CMD with a deadline; stdout in $W/NAME.tap (OUT),
# stderr in $W/NAME.err (ERR); parsed figures in RDC_KV; status in RC.
rc_run() {
	local name=$1 secs=$2 t0=$SECONDS
	shift 2

	OUT=$W/$name.tap ERR=$W/$name.err
	log "$name: $*"
	rdc_timeout "$secs" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	rdc_kv_parse <"$OUT"
	tap_kv "${name}_cmd" "$*"
	tap_kv "${name}_exit" "$RC"
	tap_kv "${name}_wall_s" "$((SECONDS - t0))"
}

# The failing lines of a run and the tail of its stderr, as diagnostics.
why() {
	grep -E '^ *not ok|cause=|first_failure|failures ' "$OUT" | head -n 8 | cut -c1-240 |
		sed 's/^ */# /'
	tail -n 4 "$ERR" | cut -c1-240 | sed 's/^/# stderr: /'
	return 0
}

# --- counters and leftovers --------------------------------------------------------

# clean NAME: 0 if the counters are at the suite baseline and nothing is left;
# else the leak as diagnostics, `rdmacap down` to clean up, and 1.
clean() {
	local now left n=0

	# the kernel frees some objects after the process is gone: a short grace
	while :; do
		now=$(rdc_res)
		left=$(rdc_leftovers)
		[ "$now" = "$BASE" ] && [ -z "$left" ] && return 0
		n=$((n + 1))
		[ "$n" -lt 10 ] || break
		sleep 1
	done
	tap_kv "${1}_leak_counters" "$(tr '\n' ';' <<<"$now")"
	tap_kv "${1}_leak_baseline" "$(tr '\n' ';' <<<"$BASE")"
	tap_kv "${1}_leak_leftovers" "$(tr '\n' ';' <<<"$left")"
	rdc_rdmacap down >/dev/null 2>&1
	tap_kv "${1}_after_down" "$(rdc_leftovers | tr '\n' ';')"
	LEAKED+=("$1")
	return 1
}

# verdict NAME DESC OK: one result, failed as well when NAME leaked.
verdict() {
	local name=$1 desc=$2 ok=$3

	if clean "$name"; then
		tap_kv "${name}_leak" none
	else
		tap_kv "${name}_leak" "counters or rdc objects left after the test"
		ok=1
	fi
	if [ "$ok" = 0 ]; then
		tap_ok "$desc"
	else
		why
		tap_fail "$desc"
	fi
}

# --- tests -------------------------------------------------------------------------

t_ramp() {
	local ok=0 n rows=0 row pts

	rc_run ramp 420 "$RDMACAP" ramp --transport rc --clients 10,50,100,200 --msgs 5 \
		--json "$W/ramp.json"
	[ "$RC" = 0 ] || ok=1
	grep -q '^# Totals: pass:[0-9]* fail:0 ' "$OUT" || ok=1
	pts=$(grep -cE '^ok [0-9]+ .*success=100\.00%' "$OUT")
	tap_kv ramp_points_100pct "$pts"
	[ "$pts" = 4 ] || ok=1
	if "$RDMACAP" report --md "$W/ramp.md" --svg "$W/ramp.svg" "$W/ramp.json" \
		>/dev/null 2>"$W/report.err"; then
		# | rc | clients | connected | success | QPs | CQs | MRs | ...
		for n in 10 50 100 200; do
			row=$(grep -E "^\| rc \| $n \|" "$W/ramp.md")
			tap_kv "ramp_row_$n" "$(cut -d'|' -f3-8,14 <<<"$row" | tr -s ' ')"
			[[ $row =~ ^\|\ rc\ \|\ $n\ \|\ $n\ \|\ 100\.00%\ \|\ $n\ \|\ $((2 * n))\ \|\ $((2 * n))\ \|.*\|\ pass\ \| ]] &&
				rows=$((rows + 1))
		done
		[ -s "$W/ramp.svg" ] || ok=1
	else
		tap_kv report_error "$(tail -n1 "$W/report.err")"
	fi
	tap_kv ramp_rows_ok "$rows/4"
	[ "$rows" = 4 ] || ok=1
	verdict ramp "capacity ramp on rc 10,50,100,200: all 100%, seed table QPs/CQs/MRs = 1/2/2 x clients" "$ok"
}

t_limit() {
	local ok=0 old l100 l95 lo hi cause capped

	old=$(sysctl -n vm.max_map_count)
	RESTORE+=("vm.max_map_count=$old")
	sysctl -qw vm.max_map_count="$MAPS" || ok=1
	tap_kv vm.max_map_count "$MAPS (was $old)"
	# The client agent's base maps (~140: libraries, TLS, rxe) come off the
	# top; 4 maps per connection (SQ, RQ and 2 CQ rings). Window: 3/4 of
	# max_map_count/4 up to max_map_count/4.
	hi=$((MAPS / 4)) lo=$((MAPS * 3 / 16))
	rc_run limit 600 "$RDMACAP" limit --transport rc --agents 1 --start $((MAPS * 2 / 15)) \
		--max $((MAPS / 2)) \
		--msgs 1 --json "$W/limit.json"
	sysctl -qw vm.max_map_count="$old"
	[ "$(sysctl -n vm.max_map_count)" = "$old" ] || ok=1
	[ "$RC" = 0 ] || ok=1
	l100=$(grep -m1 'limit at 100% success' "$OUT" | grep -oE ': [0-9]+ clients' | grep -oE '[0-9]+')
	l95=$(grep -m1 'limit at 95% success' "$OUT" | grep -oE ': [0-9]+ clients' | grep -oE '[0-9]+')
	cause=$(rdc_kv cause)
	capped=$(grep -m1 -oE 'capped=.*' "$OUT" | cut -c8-)
	tap_kv limit_100 "${l100:-none}"
	tap_kv limit_95 "${l95:-none}"
	tap_kv limit_window "$lo..$hi (95%: up to $((hi * 100 / 95)))"
	tap_kv limit_cause "${cause:-none}"
	tap_kv limit_capped "${capped:-none}"
	tap_kv limit_failures "$(grep -m1 -oE 'failures .*' "$OUT")"
	# every load point of the search: clients:connected
	tap_kv limit_points "$(sed -nE 's/^(not )?ok [0-9]+ limit clients=([0-9]+) connected=([0-9]+) .*/\2:\3/p' "$OUT" | tr '\n' ' ')"
	[ -n "$l100" ] && [ "$l100" -ge "$lo" ] && [ "$l100" -le "$hi" ] || ok=1
	# 95% of a point may be short by 5%: up to hi / 0.95
	[ -n "$l95" ] && [ "$l95" -ge "$l100" ] && [ "$l95" -le $((hi * 100 / 95)) ] || ok=1
	[[ $cause == ibv_create_*ENOMEM*vm.max_map_count=$MAPS* ]] || ok=1
	# the server was spread over processes by the same sysctl, the client was not
	[[ $capped == *vm.max_map_count*$MAPS*server\ over\ [2-9]* ]] || ok=1
	grep -q '# XFAIL' "$OUT" || ok=1
	verdict limit "limit on rc with vm.max_map_count=$MAPS, 1 client agent: 100% and 95% in $lo..$hi, cause vm.max_map_count" "$ok"
}

# The storm's setup CPU per process: one server and one client agent here, each
# "cpu_ms/wall_ms" with CPU above 0 and, one event loop each, not above its wall
# (+20 ms: /proc counts in ticks); the server's wall is the storm's (to the ms
# either way: two roundings); JSON alike.
lrc_setup_cpu() {
	local s c j cpu wall all
	s=$(rdc_kv setup_srv_cpu_ms) c=$(rdc_kv setup_agents_cpu_ms)
	all=$(awk -v t="$(rdc_kv t_all_connected_s)" 'BEGIN { printf "%.0f", t * 1000 }')
	tap_kv storm_setup_cpu "server $s agents $c (t_all_connected $all ms)"
	j=$(jq -r '[.. | objects | select(has("setup_cpu_ms")) | .setup_cpu_ms | .server, .agents] | join(" ")' \
		"$W/storm.json") || return 1
	[ "$j" = "$s $c" ] || return 1
	for v in "$s" "$c"; do
		[[ $v =~ ^([0-9]+)/([0-9]+)$ ]] || return 1
		cpu=${BASH_REMATCH[1]} wall=${BASH_REMATCH[2]}
		[ "$cpu" -gt 0 ] && [ "$cpu" -le $((wall + 20)) ] || return 1
	done
	[ "${s#*/}" -ge $((all - 1)) ] && [ "${s#*/}" -le $((all + 1)) ]
}

t_storm() {
	local ok=0 old low=128 n=500 after tuned

	old=$(sysctl -n net.rdma_ucm.max_backlog)
	RESTORE+=("net.rdma_ucm.max_backlog=$old")
	# below the storm's size, so that the orchestrator must raise it
	sysctl -qw net.rdma_ucm.max_backlog="$low" || ok=1
	tap_kv net.rdma_ucm.max_backlog "$low (suite default $old)"
	rc_run storm 300 "$RDMACAP" storm --transport rc --cm rdmacm --clients "$n" --msgs 2 \
		--json "$W/storm.json"
	after=$(sysctl -n net.rdma_ucm.max_backlog)
	sysctl -qw net.rdma_ucm.max_backlog="$old"
	tuned=$(grep -m1 -oE 'tuned net\.rdma_ucm\.max_backlog=.*' "$OUT")
	tap_kv storm_tuned "${tuned:-none}"
	tap_kv storm_backlog_after "$after"
	[ "$RC" = 0 ] || ok=1
	[ "$(rdc_kv connected)" = "$n" ] && [ "$(rdc_kv connect_pct)" = 100.00 ] || ok=1
	[ -n "$(rdc_kv setup_rate_cps)" ] && [ -n "$(rdc_kv t_all_connected_s)" ] || ok=1
	[ -n "$(rdc_kv first_msg_us_p50)" ] && [ -n "$(rdc_kv first_msg_us_p99)" ] || ok=1
	tap_kv storm_figures "setup_rate_cps=$(rdc_kv setup_rate_cps) t_all_connected_s=$(rdc_kv t_all_connected_s) first_msg_us_p50=$(rdc_kv first_msg_us_p50) first_msg_us_p99=$(rdc_kv first_msg_us_p99) first_msg_us_max=$(rdc_kv first_msg_us_max)"
	[[ $tuned == "tuned net.rdma_ucm.max_backlog=$n (was $low"* ]] || ok=1
	[ "$after" = "$low" ] || ok=1
	lrc_setup_cpu || ok=1
	verdict storm "storm on rc with rdmacm, $n clients: 100%, setup rate and first-message spread, max_backlog raised and restored" "$ok"
}

t_beside() {
	local ok=0 n=500 out run ifn

	if ! out=$(rdc_rdmacap up --topology pair --rxe 2>&1); then
		tap_diag "$out"
		tap_fail "storm beside another run: its pair did not come up"
		return
	fi
	rdc_up_ends "$out" O_
	ifn=$(rdc_up_side client if "$out")
	run=${O_CNS#rdc}
	run=${run%%-*}
	tap_kv beside_other "run=$run ns=$O_CNS link=$ifn ifindex=$(ip -n "$O_CNS" -o link show "$ifn" | cut -d: -f1)"
	# bounded: 1,200 flips (60 s), stopped with the storm
	# shellcheck disable=SC2016 # the inner shell's own expansions
	rdc_bg bash -c 'for ((i = 0; i < 1200; i++)); do
		ip -n "$1" neigh replace "$2" lladdr "02:00:00:00:00:0$((i % 2 + 1))" dev "$3" nud reachable || exit 1
		sleep 0.05; done' flip "$O_CNS" "$O_SADDR" "$ifn"
	rc_run beside 300 "$RDMACAP" storm --transport rc --cm rdmacm --clients "$n" --msgs 1
	kill -0 "$RDC_BG_PID" 2>/dev/null || ok=1
	rdc_bg_kill
	rdc_rdmacap down --run "$run" >/dev/null 2>&1 || ok=1
	[ "$RC" = 0 ] && [ "$(rdc_kv connected)" = "$n" ] || ok=1
	tap_kv beside_figures "connected=$(rdc_kv connected) setup_rate_cps=$(rdc_kv setup_rate_cps)"
	! grep -q UNREACHABLE "$OUT" || ok=1
	verdict beside "storm beside another run whose neighbour entry for the same address changes: all $n rdmacm clients connect, none UNREACHABLE" "$ok"
}

# the kernel's timeout of the agents' rdma_resolve_addr (common/deadline.h's DL_CM_STEP_MS)
LRC_CM_STEP_US=10000000

t_cold() {
	local ok=0 p99 max

	rc_run cold1 120 "$RDMACAP" run --transport rc --cm rdmacm --clients 1 --msgs 1
	p99=$(rdc_kv setup_resolve_addr_us_p99)
	tap_kv cold_one "connected=$(rdc_kv connected) resolve_addr_us=$p99"
	[ "$RC" = 0 ] && [ "$(rdc_kv connected)" = 1 ] || ok=1
	[ -n "$p99" ] && awk -v v="$p99" -v t="$LRC_CM_STEP_US" 'BEGIN { exit !(v < t / 2) }' || ok=1
	rc_run cold200 300 "$RDMACAP" storm --transport rc --cm rdmacm --cm-order phased \
		--clients 200 --msgs 1
	# the slowest whole setup: one address held to the timeout holds the step
	max=$(rdc_kv connect_us_max)
	tap_kv cold_phased "connected=$(rdc_kv connected) connect_us_max=$max resolve_addr_us_p99=$(rdc_kv setup_resolve_addr_us_p99)"
	[ "$RC" = 0 ] && [ "$(rdc_kv connected)" = 200 ] || ok=1
	[ -n "$max" ] && awk -v v="$max" -v t="$LRC_CM_STEP_US" 'BEGIN { exit !(v < t / 2) }' || ok=1
	verdict cold "cold neighbour: one rdmacm connection and a phased storm of 200 set up every connection in under half of rdma_resolve_addr's timeout" "$ok"
}

t_ctx() {
	local ok=0 n=50 cctx sctx srv

	rc_run ctx 300 "$RDMACAP" run --transport rc --agents "$n" --clients "$n" --msgs 2
	[ "$RC" = 0 ] || ok=1
	[ "$(rdc_kv connected)" = "$n" ] || ok=1
	srv=$(grep -m1 -oE '# clients=[0-9]+ agents=[0-9]+ servers=[0-9]+' "$OUT" | grep -oE '[0-9]+$')
	cctx=$(rdc_line_kv cli_dev_delta ctx)
	sctx=$(rdc_line_kv srv_dev_delta ctx)
	tap_kv ctx_client "${cctx:-none}"
	tap_kv ctx_server "${sctx:-none} (server processes ${srv:-?})"
	tap_kv ctx_cli_dev_delta "$(grep -m1 -oE 'cli_dev_delta .*' "$OUT" | cut -d' ' -f2-)"
	tap_kv ctx_srv_dev_delta "$(grep -m1 -oE 'srv_dev_delta .*' "$OUT" | cut -d' ' -f2-)"
	[ "${cctx:-x}" = "$n" ] || ok=1
	[ -n "$srv" ] && [ "${sctx:-x}" = "$srv" ] || ok=1
	verdict ctx "device contexts: $n client agents open $n contexts, the server one per process" "$ok"
}

t_mr() {
	local ok=0 n=40 conn fail cause calls

	rc_run mr 300 setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
		prlimit --memlock="$MEMLOCK:$MEMLOCK" -- \
		"$RDMACAP" run --transport rc --agents 1 --clients "$n" --size "$MR_SIZE" --msgs 1
	conn=$(rdc_kv connected) fail=$(rdc_kv failed)
	cause=$(grep -m1 -oE 'cause=.*' "$OUT" | cut -c7-)
	calls=$(grep -oE 'failures .*' "$OUT" | head -n 3 | tr '\n' ';')
	tap_kv mr_memlock "$MEMLOCK"
	tap_kv mr_size "$MR_SIZE"
	tap_kv mr_connected "${conn:-none}/$n failed=${fail:-none}"
	tap_kv mr_cause "${cause:-none}"
	tap_kv mr_failures "${calls:-none}"
	if [ "${conn:-x}" = "$n" ]; then
		# Everything registered: this kernel's rxe did not charge locked memory.
		if clean mr; then
			tap_skip "MR registration until RLIMIT_MEMLOCK" \
				"rxe on $(uname -r) does not enforce RLIMIT_MEMLOCK: $n clients x 2 MRs of $MR_SIZE B registered under RLIMIT_MEMLOCK=$MEMLOCK without CAP_IPC_LOCK"
		else
			tap_fail "MR registration until RLIMIT_MEMLOCK: leaked"
		fi
		return
	fi
	[ "$RC" != 0 ] || ok=1
	[[ $calls == *call=ibv_reg_mr* ]] || ok=1
	[[ $cause == ibv_reg_mr*RLIMIT_MEMLOCK=$MEMLOCK* ]] || ok=1
	# each connection pins 2 buffers of --size on each side: the agents stop
	# at the last whole connection under MEMLOCK (less what else is pinned)
	tap_kv mr_window "$((MEMLOCK / MR_SIZE / 2 - 1))..$((MEMLOCK / MR_SIZE / 2)) connections"
	[ -n "$conn" ] && [ "$conn" -ge $((MEMLOCK / MR_SIZE / 2 - 1)) ] &&
		[ "$conn" -le $((MEMLOCK / MR_SIZE / 2)) ] || ok=1
	verdict mr "MR registration: $n clients x 2 MRs of $MR_SIZE B under RLIMIT_MEMLOCK=$MEMLOCK fail in ibv_reg_mr, cause RLIMIT_MEMLOCK" "$ok"
}

t_leaks() {
	if [ ${#LEAKED[@]} = 0 ]; then
		tap_kv leaked none
		tap_ok "leak check: after every test the RDMA counters are at the suite baseline, no rdc namespace or rxe link left"
	else
		tap_kv leaked "${LEAKED[*]}"
		tap_fail "leak check: after every test the RDMA counters are at the suite baseline, no rdc namespace or rxe link left"
	fi
}

cleanup() {
	local kv

	for kv in "${RESTORE[@]}"; do
		sysctl -qw "$kv" 2>/dev/null
	done
	[ -n "$(rdc_leftovers)" ] && rdc_rdmacap down >/dev/null 2>&1
	[ -n "$W" ] && rm -rf "$W"
}

main() {
	local t

	rdc_rxe_suite limits-rc "rdma_rxe rdma_ucm" rdma jq setpriv prlimit
	trap cleanup EXIT

	tap_plan 8
	tap_kv kernel "$(uname -r)"
	if [ -n "$(rdc_leftovers)" ]; then
		tap_kv stale "$(rdc_leftovers | tr '\n' ';')"
		rdc_rdmacap down >/dev/null 2>&1
	fi
	BASE=$(rdc_res)
	tap_kv baseline "$(tr '\n' ';' <<<"$BASE")"

	for t in ramp limit storm beside cold ctx mr; do
		if [[ " ${LRC_TESTS:-ramp limit storm beside cold ctx mr} " == *" $t "* ]]; then
			"t_$t"
		else
			tap_skip "$t" "not in LRC_TESTS"
		fi
	done
	t_leaks
}

main
tap_finished
