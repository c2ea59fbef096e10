#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tune-kill.sh: every host sysctl rdmacap changes (harness/load/tune.c) is put
# back by `rdmacap down` after the run that changed it was SIGKILLed in its
# traffic phase, inside the rxe VM (net.rdma_ucm.max_backlog exists only with
# rdma_ucm, vm.max_map_count matters only to rc: neither can be tried on a host
# without RDMA). Before each run the suite lowers the sysctls just below what
# the plan needs (TUNE_CLIENTS clients), so the run must raise them:
#
#   1  --topology host --tune, rc over rdmacm: vm.max_map_count,
#      net.rdma_ucm.max_backlog and fs.nr_open raised, SIGKILL, `rdmacap down`:
#      each back at its value before the run, down's TAP says "restored" for
#      each, no state file left in /run/rdmacap
#   2  --topology host --tune, tcp: net.core.somaxconn and fs.nr_open, as 1
#   3  --topology pair, rc over rdmacm (no --tune: rdma_cm's backlog is raised
#      for any rdmacm plan past it): net.rdma_ucm.max_backlog, as 1, and the
#      run's namespaces gone (their own sysctls go with them)
#   4  the host as found: every sysctl of tune.c, links and namespaces as before
#      the suite (the suite's own lowering undone)
#
#   vm/run --share $PWD -- suites/vm/tune-kill.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#   TUNE_CLIENTS (100)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"

RDC_TIMEOUT=300
N=${TUNE_CLIENTS:-100}
# not rdc-named: `rdmacap down` removes rdc* links, and this NIC is the suite's
NIC=tknic
DEV=tkrxe
ADDR=10.76.0.1
# every sysctl harness/load/tune.c sets on the host or in rdmacap's namespaces
SYSCTLS="vm.max_map_count net.core.somaxconn net.rdma_ucm.max_backlog fs.nr_open
net.ipv4.ip_local_port_range net.ipv4.tcp_tw_reuse net.ipv4.tcp_max_syn_backlog"
# what the suite found, put back by cleanup whatever happened
declare -A ORIG=()

cleanup() {
	local k
	rdc_bg_kill
	for k in "${!ORIG[@]}"; do
		sysctl -qw "$k=${ORIG[$k]}"
	done
	rdc_nic_down "$NIC" "$DEV"
	rm -rf "$W"
}

snapshot() {
	local k
	ip netns list
	ip -o link show | sed 's/^[0-9]*: //; s/ qlen.*//; s/state [A-Z]*//'
	for k in $SYSCTLS; do
		printf '%s=%s\n' "$k" "$(sysctl -n "$k" 2>/dev/null)"
	done
}

# tk_running: each of TK_KEYS moved from its TK_LOW (the same order), and an
# agent runs
TK_KEYS=
TK_LOW=
tk_running() {
	local -a k v
	local i
	read -ra k <<<"$TK_KEYS"
	read -ra v <<<"$TK_LOW"
	for i in "${!k[@]}"; do
		[ "$(sysctl -n "${k[$i]}")" != "${v[$i]}" ] || return 1
	done
	[ -n "$(rdc_agents)" ]
}

# killed NAME KEY=LOW... -- ARGS...: lower each KEY to LOW, start `rdmacap run
# ARGS`, SIGKILL it once it has tuned every KEY and its clients run, then
# `rdmacap down`; one TAP result: every KEY back at LOW, each said restored
killed() {
	local name=$1 kv k why='' pid tuned seen
	local -A low=()
	shift
	while [ "$1" != -- ]; do
		k=${1%%=*}
		low[$k]=${1#*=}
		sysctl -qw "$1" || why+=" sysctl -w $1 failed"
		shift
	done
	shift
	# a hard RLIMIT_NOFILE above fs.nr_open refuses every setrlimit of it that
	# keeps it (the agent's raise: exit 126): start rdmacap below the lowered value
	RDC_BG_LOG=$W/$name.err rdc_bg sh -c "ulimit -n $NOFILE && ulimit -Hn $NOFILE &&
		exec '$RDMACAP' run $* --clients $N --msgs 1000 --think-ms 100 --timeout 200 \
		>'$W/$name.tap'"
	pid=$RDC_BG_PID
	# mid-run: every KEY raised and the agents running (the TAP's results come
	# only at the point's end)
	TK_KEYS="${!low[*]}" TK_LOW="${low[*]}"
	rdc_wait_for 120 tk_running || why+=" not every sysctl raised with agents running in 120 s"
	tuned=
	for k in "${!low[@]}"; do
		seen=$(sysctl -n "$k")
		grep -q "^# tuned $k=$seen (was ${low[$k]}," "$W/$name.tap" ||
			why+=" $k not said tuned to $seen"
		tuned+=" $k=$seen"
	done
	tap_kv "${name}_tuned" "${tuned# }"
	kill -KILL "$pid" 2>/dev/null || why+=" the run had ended before the SIGKILL"
	wait "$pid" 2>/dev/null
	"$RDMACAP" down >"$W/$name.down" 2>&1 || why+=" down exit $?"
	for k in "${!low[@]}"; do
		[ "$(sysctl -n "$k")" = "${low[$k]}" ] || why+=" $k=$(sysctl -n "$k") not ${low[$k]}"
		grep -q "^# restored $k=${low[$k]} (tuned by run " "$W/$name.down" ||
			why+=" down did not say $k restored"
	done
	[ -z "$(ls /run/rdmacap/sysctl-* 2>/dev/null)" ] || why+=" a state file left"
	[ -z "$(rdc_leftovers)" ] || why+=" left: $(rdc_leftovers | tr '\n' ' ')"
	grep '^# restored' "$W/$name.down" | tr -d '\n' | sed 's/^/# down: /; s/$/\n/'
	kv=
	for k in "${!low[@]}"; do kv+=" $k=${low[$k]}"; done
	if [ -z "$why" ]; then
		tap_ok "$name: SIGKILLed mid-run, rdmacap down restored$kv"
	else
		tap_fail "$name: SIGKILLed mid-run, then rdmacap down" "${why# }"
		grep -E '^ *(not )?ok|tuned|Bail|cause' "$W/$name.tap" | head -n 20 | sed 's/^/# tap: /'
		tail -n 5 "$W/$name.err" | sed 's/^/# err: /'
	fi
}

rdc_rxe_suite tune-kill "" rdma sysctl
modprobe -a rdma_ucm || { tap_skip_all "modprobe rdma_ucm failed"; exit 4; }
trap cleanup EXIT
rdc_nic_up "$NIC" rxe "$DEV" "$ADDR" || { tap_skip_all "stand-in NIC: $RDC_WHY"; exit 4; }
for k in $SYSCTLS; do
	ORIG[$k]=$(sysctl -n "$k") || { tap_skip_all "sysctl $k not readable"; exit 4; }
done
BEFORE=$(snapshot)
tap_plan 4

# what each plan needs (tune.c): maps N x 4 + 512, open files N + 1024, backlogs N
MAPS=$((N * 4 + 512 - 1))
FILES=$((N + 1024 - 1))
NOFILE=1024
killed host-rc-rdmacm vm.max_map_count=$MAPS net.rdma_ucm.max_backlog=$((N - 1)) \
	fs.nr_open=$FILES -- --topology host --tune --server-addr "$ADDR" --transport rc --cm rdmacm
killed host-tcp net.core.somaxconn=$((N - 1)) fs.nr_open=$FILES -- \
	--topology host --tune --server-addr "$ADDR" --transport tcp
killed pair-rc-rdmacm net.rdma_ucm.max_backlog=$((N - 1)) -- --topology pair --transport rc \
	--cm rdmacm

for k in "${!ORIG[@]}"; do
	sysctl -qw "$k=${ORIG[$k]}"
done
after=$(snapshot)
if [ "$after" = "$BEFORE" ]; then
	tap_ok "the host as found: $(echo "$SYSCTLS" | wc -w) sysctls, links and namespaces"
else
	tap_fail "the host as found" "$(diff <(echo "$BEFORE") <(echo "$after") | grep '^[<>]' | tr '\n' ';')"
fi
tap_totals
exit "$(tap_exit_code)"
