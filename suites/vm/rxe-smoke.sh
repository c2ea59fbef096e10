#!/bin/bash
# suites/vm/rxe-smoke.sh: does real Soft-RoCE work on this kernel? kselftest-style
# TAP on stdout, exit 0 pass / 1 fail / 4 skip. Meant to run as root inside the rxe
# VM:  vm/run -- suites/vm/rxe-smoke.sh
#
# pair: two namespaces joined by a veth, an rxe link on each end inside its
#       namespace (Linux >= 7.1; SKIPs with the reason before that)
# loop: one rxe device in init_net talking to itself (any kernel with rdma_rxe)
# Each runs rdma-core's own ibv_rc_pingpong -g 1, watches the RDMA resource counters
# (rdma -j resource show) rise during the run and return to their baseline after it,
# and tears down rxe links first, then the veth, then the namespaces.
#
# The topology comes from rdmacap itself (rdmacap up --topology pair|loop --rxe, rdmacap
# down --run ID), so this suite also checks that rdmacap builds and removes it right.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

# Everything created here is rdmacap's run rdc<run_id>; the pid keeps parallel runs apart.
run_id=$(printf '%04x' $((($$ * 7919 + 4099) & 0xffff)))
pfx=rdc$run_id
PAIR_NS_A='' PAIR_NS_B='' PAIR_DEV_A='' PAIR_DEV_B='' PAIR_ADDR_A=''
LOOP_DEV='' LOOP_VETH=''
port=18515
pp_iters=${RXE_SMOKE_ITERS:-2000}
work=
bg_pids=()
spawned=

# Shows the tail of a failed step's output as diagnostics.
t_log() {
	[ -s "$1" ] && tail -n "${2:-15}" "$1" | sed 's/^/#   /'
	return 0
}

skip_all() {
	tap_skip_all "$*"
	exit "$TAP_EXIT_SKIP"
}

now() { echo "$EPOCHREALTIME"; }

# Seconds from $1 to $2 (both $EPOCHREALTIME), to 0.001 s.
dt() {
	local d=$(((${2/./} - ${1/./}) / 1000))
	printf '%d.%03d' $((d / 1000)) $((d % 1000))
}

kernel_has_netns_rxe() {
	local maj min rest
	IFS=. read -r maj min rest <<<"$(uname -r)"
	[ "$maj" -gt 7 ] || { [ "$maj" = 7 ] && [ "${min%%[!0-9]*}" -ge 1 ]; }
}

rdma_dev_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
ns_gone() { ! ip netns list | grep -q "^$1\b"; }
# in_ns NS CMD...: CMD inside namespace NS, or in init_net when NS is empty.
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

udp4791_in() { in_ns "$1" ss -Huln 'sport = :4791' | grep -q .; }
tcp_listens() { in_ns "$1" ss -Htln "sport = :$2" | grep -q .; }

# "dev=qp,cq,pd,mr,ctx" for each device of this run, from rdc_res.
res_snapshot() {
	rdc_res | awk -v p="$pfx" 'index($1, p) == 1 {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print $1 "=" v["qp"] "," v["cq"] "," v["pd"] "," v["mr"] "," v["ctx"] }'
}

# --- topology: built and removed by rdmacap itself ------------------------------
# topo_up KIND: `rdmacap up --topology KIND --rxe`, then the names and addresses it
# reports ("# server=ns=.. if=.. addr=.. rxe=..", "# client=...") into A_* and B_*.
topo_up() {
	local out rc
	out=$("$RDMACAP" up --topology "$1" --rxe --run "$run_id" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc = 0 ] && grep -q '^ok 1 up' <<<"$out" || return 1
	eval "$(sed -n \
		-e 's/^# server=ns=\([^ ]*\) if=\([^ ]*\) addr=\([^ ]*\) rxe=\([^ ]*\)$/A_NS=\1 A_IF=\2 A_ADDR=\3 A_DEV=\4/p' \
		-e 's/^# client=ns=\([^ ]*\) if=\([^ ]*\) addr=\([^ ]*\) rxe=\([^ ]*\)$/B_NS=\1 B_IF=\2 B_ADDR=\3 B_DEV=\4/p' \
		<<<"$out")"
	[ -n "${A_DEV:-}" ] && [ -n "${B_DEV:-}" ]
}

# `rdmacap down --run ID`: rxe links first, then links, then namespaces.
topo_down() {
	"$RDMACAP" down --run "$run_id"
}

topo_pair_up() {
	topo_up pair || return 1
	PAIR_NS_A=$A_NS PAIR_DEV_A=$A_DEV PAIR_ADDR_A=$A_ADDR
	PAIR_NS_B=$B_NS PAIR_DEV_B=$B_DEV
}

topo_pair_down() {
	topo_down
}

topo_loop_up() {
	topo_up loop || return 1
	LOOP_DEV=$A_DEV LOOP_VETH=$A_IF
}

topo_loop_down() {
	topo_down
}

# --- the ping-pong, watched through the resource counters --------------------------
# peaked BASE SNAP DEV...: true when, for every DEV, SNAP has k more QPs, CQs, MRs and
# contexts than BASE, k being how often DEV is listed: each ping-pong side holds one
# of each, and in the loop case both sides share a device.
peaked() {
	local base=$1 snap=$2 d k
	shift 2
	for d in $(printf '%s\n' "$@" | sort -u); do
		k=$(printf '%s\n' "$@" | grep -cx "$d")
		grep "^$d=" <<<"$snap" | awk -F'[=,]' -v k="$k" -v b="$(grep "^$d=" <<<"$base")" '
			BEGIN { split(b, x, /[=,]/) }
			$2 >= x[2] + k && $3 >= x[3] + k && $5 >= x[5] + k && $6 >= x[6] + k { ok = 1 }
			END { exit !ok }' || return 1
	done
}

# spawn NS OUT CMD...: CMD in the background in NS ("" = init_net), output to OUT;
# sets spawned to its pid. ip netns exec execs CMD, so the pid is CMD's own.
spawn() {
	local ns=$1 out=$2
	shift 2
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@" >"$out" 2>&1 &
	else
		"$@" >"$out" 2>&1 &
	fi
	spawned=$!
	bg_pids+=("$spawned")
}

# wait_pid PID SECONDS: its exit status, or 124 after killing it at the deadline.
wait_pid() {
	local pid=$1 i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -CONT "$pid" 2>/dev/null
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid"
}

# pingpong NAME SRV_NS SRV_DEV CLI_NS CLI_DEV SERVER_ADDR: ibv_rc_pingpong, server in
# SRV_NS, client in CLI_NS ("" = init_net). Three results: the ping-pong itself, both
# sides' resources seen in the kernel's counters, the counters back at baseline.
# To see both sides without racing a short run, the server is stopped once it
# listens (its resources exist by then): the client then sets up its own and blocks
# reading the server's QP address, the counters are read, and the server continues.
pingpong() {
	local name=$1 sns=$2 sdev=$3 cns=$4 cdev=$5 addr=$6
	local base snap='' t0 t1 spid cpid src=0 crc=0 usec after deadline
	base=$(res_snapshot)
	tap_diag "$name: counters before (dev=qp,cq,pd,mr,ctx): ${base//$'\n'/ }"
	t0=$(now)
	spawn "$sns" "$work/$name.srv" ibv_rc_pingpong -d "$sdev" -g 1 -p "$port" -n "$pp_iters"
	spid=$spawned
	rdc_wait_for 10 tcp_listens "$sns" "$port" ||
		tap_diag "$name: server not listening on TCP $port after 10 s"
	kill -STOP "$spid" 2>/dev/null
	spawn "$cns" "$work/$name.cli" ibv_rc_pingpong -d "$cdev" -g 1 -p "$port" -n "$pp_iters" "$addr"
	cpid=$spawned
	# Bounded in time, not tries: one snapshot takes 0.1-1 s under TCG.
	deadline=$((${EPOCHREALTIME/./} + 15000000))
	while :; do
		snap=$(res_snapshot)
		peaked "$base" "$snap" "$sdev" "$cdev" && break
		kill -0 "$cpid" 2>/dev/null || break
		[ "${EPOCHREALTIME/./}" -lt "$deadline" ] || break
		sleep 0.1
	done
	kill -CONT "$spid" 2>/dev/null
	wait_pid "$cpid" 60 || crc=$?
	wait_pid "$spid" 10 || src=$?
	bg_pids=()
	t1=$(now)
	usec=$(sed -n 's/.* = \([0-9.]*\) usec\/iter$/\1/p' "$work/$name.cli")
	tap_diag "pingpong_wall_s=$(dt "$t0" "$t1") iters=$pp_iters usec_per_iter=${usec:-none}"
	if [ "$src" = 0 ] && [ "$crc" = 0 ] && [ -n "$usec" ]; then
		tap_ok "$name: ibv_rc_pingpong -g 1"
	else
		tap_diag "server exit $src, client exit $crc"
		t_log "$work/$name.srv"
		t_log "$work/$name.cli"
		tap_fail "$name: ibv_rc_pingpong -g 1"
	fi
	tap_diag "$name: counters with both sides set up: ${snap//$'\n'/ }"
	peaked "$base" "$snap" "$sdev" "$cdev"
	rdc_result $? "$name: QP, CQ, MR and context counted while running"
	after=$(res_snapshot)
	tap_diag "$name: counters after: ${after//$'\n'/ }"
	[ "$after" = "$base" ] && [ -n "$base" ]
	rdc_result $? "$name: counters back at baseline"
}

cleanup() {
	local p
	for p in "${bg_pids[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	topo_pair_down >/dev/null 2>&1
	topo_loop_down >/dev/null 2>&1
	[ -z "$work" ] || rm -rf -- "$work"
}

# --- main --------------------------------------------------------------------------
probe() {
	local c
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	for c in ip rdma ss jq ibv_rc_pingpong modprobe modinfo; do
		command -v "$c" >/dev/null || skip_all "$c not found"
	done
	modinfo rdma_rxe >/dev/null 2>&1 || skip_all "module rdma_rxe not found (kernel $(uname -r))"
	[ -x "$RDMACAP" ] || skip_all "$RDMACAP not built (make)"
}

# rdmacap env sees rxe, and says whether it works inside namespaces (a real probe).
run_env() {
	local out
	out=$("$RDMACAP" env --deep 2>"$work/env.err")
	printf '%s\n' "$out" >"$work/env.tap"
	grep -q '^ok [0-9]* rdma_rxe module$' <<<"$out"
	rdc_result $? "env: rdmacap env reports rdma_rxe"
	if kernel_has_netns_rxe; then
		grep -q '^ok [0-9]* rxe inside network namespaces (Linux >= 7.1)$' <<<"$out"
	else
		grep -q '^ok [0-9]* rxe inside network namespaces .*# SKIP .*7\.1' <<<"$out"
	fi
	rdc_result $? "env: rxe inside namespaces reported as $(kernel_has_netns_rxe && echo working || echo unsupported)"
}

run_pair() {
	local t0 t1 rc
	if ! kernel_has_netns_rxe; then
		for d in "up" "UDP 4791 listens in each namespace" "ibv_rc_pingpong -g 1" \
			"QP, CQ, MR and context counted while running" "counters back at baseline" \
			"teardown leaves nothing"; do
			tap_skip "pair: $d" "rxe inside network namespaces needs Linux >= 7.1, have $(uname -r)"
		done
		return
	fi
	t0=$(now)
	topo_pair_up >"$work/pair.up" 2>&1
	rc=$?
	t1=$(now)
	tap_diag "pair_up_s=$(dt "$t0" "$t1")"
	[ $rc = 0 ] || t_log "$work/pair.up"
	rdc_result $rc "pair: up ($PAIR_DEV_A in $PAIR_NS_A, $PAIR_DEV_B in $PAIR_NS_B)"
	if [ $rc = 0 ]; then
		udp4791_in "$PAIR_NS_A" && udp4791_in "$PAIR_NS_B"
		rdc_result $? "pair: UDP 4791 listens in each namespace"
		pingpong pair "$PAIR_NS_A" "$PAIR_DEV_A" "$PAIR_NS_B" "$PAIR_DEV_B" "$PAIR_ADDR_A"
	else
		for d in "UDP 4791 listens in each namespace" "ibv_rc_pingpong -g 1" \
			"QP, CQ, MR and context counted while running" "counters back at baseline"; do
			tap_skip "pair: $d" "pair topology did not come up"
		done
	fi
	t0=$(now)
	topo_pair_down >"$work/pair.down" 2>&1
	rc=$?
	t1=$(now)
	tap_diag "pair_down_s=$(dt "$t0" "$t1")"
	tap_diag "leftovers: $(rdc_leftovers "$pfx" | tr '\n' ' ')"
	[ $rc = 0 ] && [ -z "$(rdc_leftovers "$pfx")" ]
	rc=$?
	[ $rc = 0 ] || t_log "$work/pair.down"
	rdc_result $rc "pair: teardown leaves nothing"
}

run_loop() {
	local t0 t1 rc
	t0=$(now)
	topo_loop_up >"$work/loop.up" 2>&1
	rc=$?
	t1=$(now)
	tap_diag "loop_up_s=$(dt "$t0" "$t1")"
	[ $rc = 0 ] || t_log "$work/loop.up"
	rdc_result $rc "loop: up ($LOOP_DEV on $LOOP_VETH in init_net)"
	if [ $rc = 0 ]; then
		pingpong loop "" "$LOOP_DEV" "" "$LOOP_DEV" 127.0.0.1
	else
		for d in "ibv_rc_pingpong -g 1" "QP, CQ, MR and context counted while running" \
			"counters back at baseline"; do
			tap_skip "loop: $d" "loop topology did not come up"
		done
	fi
	t0=$(now)
	topo_loop_down >"$work/loop.down" 2>&1
	rc=$?
	t1=$(now)
	tap_diag "loop_down_s=$(dt "$t0" "$t1")"
	[ $rc = 0 ] && [ -z "$(rdc_leftovers "$pfx")" ]
	rc=$?
	[ $rc = 0 ] || t_log "$work/loop.down"
	rdc_result $rc "loop: teardown leaves nothing"
}

main() {
	local t0 t1 rc
	tap_init
	probe
	work=$(mktemp -d "${TMPDIR:-/tmp}/rdcsmk.XXXXXX") || skip_all "mktemp failed"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	tap_plan 14
	tap_diag "kernel=$(uname -r)"
	t0=$(now)
	modprobe -a rdma_rxe ib_uverbs rdma_ucm veth >"$work/modprobe" 2>&1
	rc=$?
	t1=$(now)
	tap_diag "modprobe_s=$(dt "$t0" "$t1")"
	t_log "$work/modprobe"
	rdc_result $rc "modules load (rdma_rxe ib_uverbs rdma_ucm veth)"
	if [ $rc != 0 ]; then
		tap_bail "modules did not load"
		tap_finished
	fi
	run_env
	run_pair
	run_loop
	tap_finished
}

main "$@"
