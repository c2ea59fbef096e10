#!/bin/bash
# SPDX-License-Identifier: MIT
#
# siw.sh: does Soft-iWARP work on this kernel? Debian builds no siw; make vm-siw
# (vm/build-siw) builds it for bookworm's LTS kernel, so this runs in make check's
# vm-lts boot and SKIPs, naming that target, where `modprobe siw` fails. siw's
# netdev notifier ignores devices outside init_net: both links live in the VM's
# root namespace, on the two ends of one veth pair.
#
#   1   rdma link add D type siw netdev VETH, twice: both ports ACTIVE
#   2   ibv_devinfo: transport iWARP, link layer Ethernet, PORT_ACTIVE
#   3   rdma-core's rping from one link to the other (rdma_cm, RC; the client
#       bound to its own address, routed across the veth, not lo), 100 round
#       trips with data verified (-V)
#   4   the devices' RDMA counters after it equal those before it (idle)
#
#   vm/run --kernel build/vm/kernel/bookworm --share $PWD -- suites/vm-lts/siw.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"

NIC=rdcw$$
NIC=${NIC:0:12}
DEV=rdcsiw0 DEV2=rdcsiw1
ADDR=10.78.0.1 ADDR2=10.78.0.2
PORT=7174
# rping's round trips: ~10 ms each under TCG
ITERS=100

cleanup() {
	rdc_bg_kill
	rdc_nic_down "$NIC" "$DEV" "$DEV2"
	rm -rf "$W"
}

rdc_rxe_suite siw "ib_uverbs rdma_ucm veth" rdma rping ibv_devinfo
trap cleanup EXIT
modprobe siw 2>"$W/modprobe.err" ||
	{ tap_skip_all "no siw module for $(uname -r): make vm-siw builds it; $(head -c 200 "$W/modprobe.err")"; exit 4; }
tap_plan 4

if rdc_nic_up "$NIC" siw "$DEV" "$ADDR" "$DEV2" "$ADDR2"; then
	tap_ok "siw links $DEV on ${NIC}a and $DEV2 on ${NIC}b: ports ACTIVE"
else
	tap_fail "siw links on $NIC" "$RDC_WHY"
	rdma link show | sed 's/^/# /'
fi

ibv_devinfo -d "$DEV" >"$W/devinfo" 2>&1
if grep -qE '^\s*transport:\s*iWARP' "$W/devinfo" && grep -q 'PORT_ACTIVE' "$W/devinfo" &&
	grep -qE 'link_layer:\s*Ethernet' "$W/devinfo"; then
	tap_ok "ibv_devinfo $DEV: transport iWARP, link layer Ethernet, PORT_ACTIVE"
else
	tap_fail "ibv_devinfo $DEV: transport iWARP" "$(grep -E 'transport|state|link_layer' "$W/devinfo" | tr -s ' \t\n' ' ')"
fi

BASE=$(rdc_res)
rdc_nic_cross "$NIC" "$ADDR" "$ADDR2" || tap_diag "rdc_nic_cross $NIC: failed"
RDC_BG_LOG=$W/rping-server.log rdc_bg rping -s -a "$ADDR" -p "$PORT" -C "$ITERS" -V -S 64
# the server listens within ~1 s under TCG; the client retries nothing
sleep 2
rx0=$(cat "/sys/class/net/${NIC}a/statistics/rx_packets")
t0=$EPOCHREALTIME
rdc_timeout 120 rping -c -a "$ADDR" -I "$ADDR2" -p "$PORT" -C "$ITERS" -V -S 64 -v >"$W/rping.log" 2>&1
rc=$?
t1=$EPOCHREALTIME
n=$(grep -c '^ping data' "$W/rping.log")
rx=$(($(cat "/sys/class/net/${NIC}a/statistics/rx_packets") - rx0))
tap_kv veth_rx_packets "$rx"
# each round trip is at least one TCP segment into the server's end
if [ "$rc" = 0 ] && [ "$n" = "$ITERS" ] && ((rx >= ITERS)); then
	tap_kv rping_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
	tap_ok "rping $DEV2 -> $DEV over rdma_cm: $ITERS round trips, data verified"
else
	tap_fail "rping $DEV2 -> $DEV over rdma_cm" "exit $rc, $n of $ITERS round trips, $rx packets into ${NIC}a; $(tail -n 2 "$W/rping.log" | tr '\n' ' ')"
	sed 's/^/# server: /' "$W/rping-server.log" | tail -n 5
fi
rdc_bg_kill

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
