# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# common.sh: helpers for the limit-test suites, shared by the kselftest-style
# scripts (source this) and the bats files (load common.bash, which sources it).
#
#   RDC_ROOT, RDMACAP, RDMACAP_AGENT   the repo and the binaries under test
#   rdc_have_root|rdc_have_rxe|rdc_have_cmd CMD
#                              0 if present, else 1 with the reason in RDC_WHY
#                              (blktests' _have_* helpers, one reason each)
#   rdc_need CHECK [ARGS]      in a script: skip everything ("1..0 # SKIP why",
#                              exit 4) unless CHECK succeeds; call before the plan
#   rdc_rxe_suite NAME MODS [CMD...]
#                              a VM suite's start: TAP begins, skip unless root,
#                              rdma_rxe, rdma, jq, CMDs, RDMACAP, RDMACAP_AGENT and
#                              modprobe MODS; W a work folder removed on exit
#   rdc_up_side ROLE KEY TEXT  KEY (ns, if, addr, rxe) of the server or client end
#                              in the TEXT `rdmacap up --topology pair` printed
#   rdc_up_ends TEXT [PREFIX]  both ends as PREFIX{S,C}{NS,ADDR,DEV}
#   rdc_timeout SECS CMD...    CMD with a deadline, its process group killed
#   rdc_rdmacap ARGS...        build/rdmacap with the RDC_TIMEOUT deadline
#   rdc_capture FILE ARGS...   that, TAP in FILE.tap: OUT, RC, RDC_KV; rdc_point
#                              also echoes its figures; rdc_clean_why: why the
#                              point is not 100% and verified ("" when it is);
#                              rdc_carried_why N: not every round trip of N clients
#   rdc_bg CMD...; rdc_bg_kill background processes that never hold fd 3
#   rdc_result OK DESC [OUT ERR]
#                              one result from a status, with why a run failed
#   kv.sh, wait.sh, host.sh    sourced here: key=value readers, bounded waits,
#                              counters, leftovers and agents of the host
#                              (each file's header lists what it offers)
#   agent.sh, pki.sh, rcpair.sh
#                              source them where needed: agents over pipes, a
#                              throwaway PKI, rc agents on an rxe pair
#
# Background processes and fd 3: bats reads the TAP stream of a test from fd 3
# and waits until every holder has closed it, so a daemon that inherits fd 3
# hangs the whole run (bats-core#43, netavark's run_helper). Every command
# started here gets 3>&-.

RDC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../tap/tap.sh
. "$RDC_ROOT/tap/tap.sh"
# shellcheck source=kv.sh
. "$RDC_ROOT/suites/lib/kv.sh"
# shellcheck source=wait.sh
. "$RDC_ROOT/suites/lib/wait.sh"
# shellcheck source=host.sh
. "$RDC_ROOT/suites/lib/host.sh"

RDMACAP=${RDMACAP:-$RDC_ROOT/build/rdmacap}
RDMACAP_AGENT=${RDMACAP_AGENT:-$RDC_ROOT/build/rdmacap-agent}
RDC_TIMEOUT=${RDC_TIMEOUT:-120}
RDC_KILL_AFTER=${RDC_KILL_AFTER:-10}
RDC_BG_PIDS=()
RDC_WHY=

rdc_have_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	RDC_WHY="not root"
	return 1
}

rdc_have_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	RDC_WHY="command $1 is not available"
	return 1
}

# Loaded, or loadable for the running kernel (modprobe -n does not load it).
rdc_have_rxe() {
	[ -d /sys/module/rdma_rxe ] && return 0
	modprobe -n rdma_rxe >/dev/null 2>&1 && return 0
	RDC_WHY="no rdma_rxe module for $(uname -r)"
	return 1
}

rdc_need() {
	"$@" && return 0
	tap_skip_all "$RDC_WHY"
	exit "$TAP_EXIT_SKIP"
}

# rdc_rxe_suite NAME MODS [CMD...]: the start of a suite that drives RDMACAP on
# rxe (suites/vm): tap_init; skip everything (exit 4) without root, rdma_rxe,
# each CMD, the built RDMACAP and RDMACAP_AGENT, or when a module of MODS
# ("rdma_rxe sch_netem", or "") does not load; then W=/tmp/NAME.XXXXXX, removed
# when the script exits (INT and TERM exit too). A suite with more to undo sets
# its own EXIT trap after this one, and removes W in it.
rdc_rxe_suite() {
	local name=$1 mods=$2 m c b

	shift 2
	tap_init
	rdc_need rdc_have_root
	rdc_need rdc_have_rxe
	# rdma and jq: every rxe suite reads the counters (host.sh's rdc_res)
	for c in rdma jq "$@"; do
		rdc_need rdc_have_cmd "$c"
	done
	for b in "$RDMACAP" "$RDMACAP_AGENT"; do
		[ -x "$b" ] || { tap_skip_all "$b not built"; exit 4; }
	done
	for m in $mods; do
		modprobe "$m" && continue
		tap_skip_all "modprobe $mods failed"
		exit 4
	done
	W=$(mktemp -d "/tmp/$name.XXXXXX")
	trap rdc_rxe_suite_cleanup EXIT
	trap 'exit 130' INT TERM
}

rdc_rxe_suite_cleanup() {
	[ -n "$W" ] && rm -rf "$W"
	return 0
}

# rdc_up_side ROLE KEY TEXT: the value of KEY on the line
# "# ROLE=ns=.. if=.. addr=.. rxe=.." (ROLE server or client) that `rdmacap up
# --topology pair` prints for each end; empty when TEXT has none.
rdc_up_side() {
	sed -n -E "s/^# $1=(.* )?$2=([^ ]*).*/\2/p" <<<"$3" | head -n 1
}

# rdc_up_ends TEXT [PREFIX]: the namespace, address and rxe device of both ends
# in TEXT as PREFIXSNS PREFIXSADDR PREFIXSDEV (server) and PREFIXCNS PREFIXCADDR
# PREFIXCDEV (client), each empty when TEXT does not name it.
rdc_up_ends() {
	local r k

	for r in S:server C:client; do
		for k in NS:ns ADDR:addr DEV:rxe; do
			printf -v "${2-}${r%%:*}${k%%:*}" '%s' "$(rdc_up_side "${r#*:}" "${k#*:}" "$1")"
		done
	done
}

rdc_timeout() {
	local secs=$1
	shift
	timeout -k "$RDC_KILL_AFTER" "$secs" "$@" 3>&- </dev/null
}

rdc_rdmacap() {
	rdc_timeout "$RDC_TIMEOUT" "$RDMACAP" "$@"
}

# rdc_capture FILE ARGS...: one rdmacap command (a run) whose TAP goes to FILE.tap
# and stderr to FILE.err; then OUT=FILE.tap, RC its status, RDC_KV its figures.
rdc_capture() {
	local f=$1
	shift
	OUT=$f.tap
	rdc_rdmacap "$@" >"$OUT" 2>"$f.err"
	RC=$?
	# shellcheck disable=SC2119 # without TEXT it reads stdin
	rdc_kv_parse <"$OUT"
}

# rdc_point FILE ARGS...: rdc_capture, then the lines of the point's figures
# matching RDC_POINT_SHOW (an ERE of keys) echoed as our own diagnostics.
rdc_point() {
	rdc_capture "$@"
	grep -E "^ +# (${RDC_POINT_SHOW:-connected|msgs|srv_|cause|why})" "$OUT" | sed 's/^ *//'
	return 0
}

# rdc_clean_why: after rdc_capture, what keeps its point from a clean one (exit 0,
# 100% success, every round trip verified), as " exit 1 not 100% ..."; "" if nothing.
rdc_clean_why() {
	local why=

	[ "$RC" = 0 ] || why+=" exit $RC"
	grep -qE '^ok 1 run .*success=100.00%' "$OUT" || why+=" not 100%"
	[ "$(rdc_kv verified)" = "$(rdc_kv expected)" ] || why+=" verified=$(rdc_kv verified)"
	printf '%s' "$why"
}

# rdc_carried_why N: after rdc_capture, what keeps a point of N clients from
# having carried every round trip (exit 0, N connected, msgs = expected, every
# one verified, none lost); "" if nothing.
rdc_carried_why() {
	local why=

	[ "$RC" = 0 ] || why+=" exit $RC"
	[ "$(rdc_kv connected)" = "$1" ] || why+=" connected=$(rdc_kv connected)"
	[ "$(rdc_kv msgs)" = "$(rdc_kv expected)" ] || why+=" msgs=$(rdc_kv msgs)"
	[ "$(rdc_kv verified)" = "$(rdc_kv msgs)" ] || why+=" verified=$(rdc_kv verified)"
	[ "$(rdc_kv lost)" = 0 ] || why+=" lost=$(rdc_kv lost)"
	printf '%s' "$why"
}

# rdc_fig_is LINE KEY VALUE: KEY=VALUE on the first "# LINE ..." line of OUT
# (rdc_fig_is srv_dev_delta qp 8), where a line holds keys another repeats
rdc_fig_is() {
	grep -m1 -E "# $1 " "$OUT" | grep -qE "(^| )$2=$3( |\$)"
}

# rdc_bg CMD...: output to RDC_BG_LOG (default /dev/null), never to the TAP
# stream; the PID is in RDC_BG_PID and remembered for rdc_bg_kill.
rdc_bg() {
	"$@" 3>&- </dev/null >>"${RDC_BG_LOG:-/dev/null}" 2>&1 &
	RDC_BG_PID=$!
	RDC_BG_PIDS+=("$RDC_BG_PID")
}

# TERM, then KILL whatever is left after 5 s. Only our own PIDs.
rdc_bg_kill() {
	local pid n

	for pid in "${RDC_BG_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${RDC_BG_PIDS[@]}"; do
		for ((n = 0; n < 50; n++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	RDC_BG_PIDS=()
}

# rdc_result OK DESC [OUT ERR]: tap_ok DESC when OK is 0; else the not-ok lines
# and why of the rdmacap TAP in OUT, the tail of its stderr in ERR (when given),
# and tap_fail DESC.
rdc_result() {
	if [ "$1" = 0 ]; then
		tap_ok "$2"
		return 0
	fi
	if [ $# -gt 2 ]; then
		grep -E '^ *not ok|why=' "$3" | head -n 4 | sed -E 's/^ *#? ?/# /'
		tail -n 3 "$4" | sed 's/^/# stderr: /'
	fi
	tap_fail "$2"
}
