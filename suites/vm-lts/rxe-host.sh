#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rxe-host.sh: rdmacap on an LTS kernel's rxe (bookworm's 6.1 in make check's
# vm-lts boot), where rxe lives in init_net only (per-namespace rxe sockets came
# in Linux 7.1). The suite makes the "NIC" (a veth pair in the VM's root namespace
# with an rxe link on one end), then:
#
#   1   run --topology host --transport rc on it: 100%, every payload verified,
#       RDMA counters back at the baseline
#   2   the same with --transport tcp
#   3   run --topology pair --transport rc: exit 4, SKIP naming the kernel and
#       7.1 (SKIPped itself on a kernel that has rxe in namespaces)
#   4   RDMA counters after the suite equal those before it
#
#   vm/run --kernel build/vm/kernel/bookworm --share $PWD -- suites/vm-lts/rxe-host.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"

NIC=rdcl$$
NIC=${NIC:0:12}
DEV=rdclrxe0
ADDR=10.79.0.1

cleanup() {
	rdc_nic_down "$NIC" "$DEV"
	rm -rf "$W"
}

rdc_rxe_suite rxe-host "rdma_rxe ib_uverbs rdma_ucm veth" rdma
trap cleanup EXIT
rdc_nic_up "$NIC" rxe "$DEV" "$ADDR" || { tap_skip_all "$RDC_WHY"; exit 4; }
tap_plan 4
tap_diag "kernel $(uname -r)"
BASE=$(rdc_res)

rdc_capture "$W/rc" run --topology host --device "$DEV" --server-addr "$ADDR" \
	--transport rc --clients 50 --msgs 20
why=$(rdc_clean_why)
grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
if [ -z "$why" ]; then
	tap_ok "rc on $DEV (host topology): 50/50, verified, counters back"
else
	tap_fail "rc on $DEV (host topology)" "$why; $(grep -m1 -E 'why|cause|Bail' "$OUT")"
fi

rdc_capture "$W/tcp" run --topology host --server-addr "$ADDR" --transport tcp --clients 200 --msgs 10
why=$(rdc_clean_why)
if [ -z "$why" ]; then
	tap_ok "tcp at $ADDR (host topology): 200/200, verified"
else
	tap_fail "tcp at $ADDR (host topology)" "$why"
fi

IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
if ((kmaj > 7 || (kmaj == 7 && kmin >= 1))); then
	tap_skip "pair on $(uname -r)" "Linux >= 7.1 has rxe in namespaces: suites/vm covers pair"
else
	rdc_capture "$W/pair" run --topology pair --transport rc --clients 2 --msgs 2
	skip=$(grep -m1 -E '^1\.\.0 # SKIP|^ok 1 .* # SKIP' "$OUT")
	if [ "$RC" = 4 ] && [[ $skip == *"Linux $kmaj.$kmin"*"7.1"* ]]; then
		tap_ok "pair on $(uname -r): exit 4, SKIP names the kernel (${skip#*# SKIP })"
	else
		tap_fail "pair on $(uname -r): exit 4, SKIP naming the kernel" \
			"exit $RC: $(grep -m2 -E 'SKIP|Bail|not ok' "$OUT" | tr '\n' ' ')"
	fi
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
