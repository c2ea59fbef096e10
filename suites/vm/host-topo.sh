#!/bin/bash
# SPDX-License-Identifier: MIT
#
# host-topo.sh: --topology host on a device rdmacap did not make, inside the
# rxe VM. The suite itself makes the "NIC" first (a veth pair in the VM's root
# namespace with an rxe link on one end, as an RNIC's driver would have), then:
#
#   1   rdmacap env lists that device: limits, port, link layer, its GID
#   2   run --topology host --device D --server-addr A --transport rc: 100%,
#       every payload verified, RDMA counters back at the baseline
#   3   the same with --transport tcp
#   4   the same with --transport ud
#   5   --device D:1 --gid-index G (the GID env showed): 100%
#   6   a device that does not exist: exit 2 (usage) at once, the device named
#   7   a plan past net.core.somaxconn says which sysctl would have helped,
#       and changes nothing without --tune
#   8   with --tune: "tuned", and the sysctl is back after the run
#   9   the host as found: namespaces, links, addresses, rdma links and the
#       sysctls rdmacap knows compared before and after tests 1-8
#
#   vm/run --share $PWD -- suites/vm/host-topo.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

NIC=hnic$$
NIC=${NIC:0:12}
DEV=hrxe0
ADDR=10.77.0.1
SYSCTLS="vm.max_map_count net.core.somaxconn net.rdma_ucm.max_backlog fs.nr_open
net.ipv4.ip_local_port_range net.ipv4.tcp_tw_reuse net.ipv4.tcp_max_syn_backlog"

cleanup() {
	rdma link del "$DEV" 2>/dev/null
	ip link del "${NIC}a" 2>/dev/null
	rm -rf "$W"
}

# what a host is: everything rdmacap could have touched
snapshot() {
	ip netns list
	ip -o link show | sed 's/^[0-9]*: //; s/ qlen.*//; s/state [A-Z]*//'
	ip -o addr show | sed "s/ tentative//"
	rdma link show
	for k in $SYSCTLS; do
		printf '%s=%s\n' "$k" "$(sysctl -n "$k" 2>/dev/null)"
	done
}

# the stand-in for an RNIC, made by the suite as a driver would have made it
make_nic() {
	modprobe -a rdma_rxe ib_uverbs rdma_ucm veth || return 1
	ip link add "${NIC}a" type veth peer name "${NIC}b" || return 1
	ip addr add "$ADDR/24" dev "${NIC}a" || return 1
	ip link set "${NIC}a" up && ip link set "${NIC}b" up || return 1
	rdma link add "$DEV" type rxe netdev "${NIC}a" || return 1
	for _ in $(seq 100); do
		rdma link show "$DEV/1" 2>/dev/null | grep -q 'state ACTIVE' &&
			grep -qs "0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' ${ADDR//./ })" \
				/sys/class/infiniband/$DEV/ports/1/gids/* && return 0
		sleep 0.1
	done
	return 1
}

# run_ok NAME ARGS...: rdmacap run ARGS, TAP in $W/NAME.tap; why it is not 100% in why
RC=0 why='' OUT=''
run_ok() {
	rdc_capture "$W/$1" run --topology host "${@:2}"
	why=$(rdc_clean_why)
}

rdc_rxe_suite host-topo "" rdma
trap cleanup EXIT
make_nic || { tap_skip_all "could not make the stand-in NIC ($NIC, $DEV)"; exit 4; }
tap_plan 9
BEFORE=$(snapshot)
BASE=$(rdc_res)

"$RDMACAP" env >"$W/env.tap" 2>&1
line=$(grep -m1 "dev=$DEV port=1 " "$W/env.tap")
if grep -q "dev=$DEV .*max_qp=[0-9]" "$W/env.tap" && [[ $line == *link_layer=Ethernet* ]] &&
	[[ $line == *":RoCEv2:$ADDR"* ]] && [[ $line == *state=PORT_ACTIVE* || $line == *state=active* ]]; then
	tap_ok "env lists $DEV: limits, port 1 active, Ethernet, RoCEv2 GID of $ADDR"
else
	tap_fail "env lists $DEV" "$line"
	sed 's/^/# /' "$W/env.tap"
fi
GIDX=$(sed -n "s/.*[ ,]\([0-9]*\):RoCEv2:$ADDR.*/\1/p" <<<"$line")

run_ok rc --device "$DEV" --server-addr "$ADDR" --transport rc --clients 50 --msgs 20
grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
grep -q "device=$DEV" "$OUT" || why+=" device not named"
if [ -z "$why" ]; then tap_ok "rc on $DEV at $ADDR: 50/50, verified, counters back"; else tap_fail "rc on $DEV" "$why; $(grep -m1 -E 'why|cause|Bail' "$OUT")"; fi

run_ok tcp --server-addr "$ADDR" --transport tcp --clients 200 --msgs 10
if [ -z "$why" ]; then tap_ok "tcp at $ADDR: 200/200, verified"; else tap_fail "tcp at $ADDR" "$why"; fi

run_ok ud --device "$DEV" --server-addr "$ADDR" --transport ud --clients 20 --msgs 10
if [ -z "$why" ]; then tap_ok "ud on $DEV: 20/20, verified"; else tap_fail "ud on $DEV" "$why"; fi

run_ok gid --device "$DEV:1" --gid-index "${GIDX:-1}" --transport rc --clients 10
[ -n "$GIDX" ] || why+=" no GID index from env"
if [ -z "$why" ]; then tap_ok "rc --device $DEV:1 --gid-index $GIDX (server address from the GID): 100%"; else tap_fail "rc --device $DEV:1 --gid-index $GIDX" "$why; $(grep -m1 Bail "$OUT")"; fi

t0=$EPOCHREALTIME
rdc_rdmacap run --topology host --device nosuchdev0 --transport rc --clients 2 >"$W/nodev.tap" 2>&1
RC=$?
t1=$EPOCHREALTIME
if [ "$RC" = 2 ] && grep -q "nosuchdev0" "$W/nodev.tap" && (( ${t1%.*} - ${t0%.*} < 10 )); then
	tap_ok "a device that is not there: usage error (exit 2) at once, named"
else
	tap_fail "a device that is not there" "exit $RC: $(grep -m1 -i bail "$W/nodev.tap")"
fi

# tcp on a 10-client plan and 4097 allowed connections: the server's backlog is
# too small for a 5000-client storm; say so, change nothing
old=$(sysctl -n net.core.somaxconn)
sysctl -qw net.core.somaxconn=64
BEFORE=${BEFORE/net.core.somaxconn=$old/net.core.somaxconn=64}
rdc_rdmacap run --topology host --transport tcp --clients 100 --msgs 1 >"$W/advice.tap" 2>&1
if grep -q "would_help: net.core.somaxconn=100 (is 64" "$W/advice.tap" &&
	[ "$(sysctl -n net.core.somaxconn)" = 64 ]; then
	tap_ok "without --tune: says net.core.somaxconn would have helped, leaves it at 64"
else
	tap_fail "without --tune" "$(grep -m1 -E 'would|tuned' "$W/advice.tap"); somaxconn=$(sysctl -n net.core.somaxconn)"
fi

rdc_rdmacap run --topology host --tune --transport tcp --clients 100 --msgs 1 >"$W/tune.tap" 2>&1
if grep -q "tuned net.core.somaxconn=100 (was 64" "$W/tune.tap" &&
	[ "$(sysctl -n net.core.somaxconn)" = 64 ]; then
	tap_ok "--tune: net.core.somaxconn set for the run, back to 64 after it"
else
	tap_fail "--tune" "$(grep -m1 -E 'would|tuned' "$W/tune.tap"); somaxconn=$(sysctl -n net.core.somaxconn)"
fi
sysctl -qw net.core.somaxconn="$old"
BEFORE=${BEFORE/net.core.somaxconn=64/net.core.somaxconn=$old}

sleep 1
AFTER=$(snapshot)
if [ "$AFTER" = "$BEFORE" ] && [ "$(rdc_res)" = "$BASE" ]; then
	tap_ok "the host as found: namespaces, links, addresses, rdma links, sysctls, RDMA counters"
else
	diff <(echo "$BEFORE") <(echo "$AFTER") | sed 's/^/# /'
	tap_fail "the host as found" "counters before $BASE after $(rdc_res)"
fi
tap_totals
exit "$(tap_exit_code)"
