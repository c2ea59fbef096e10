#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fi.sh: the libfabric transports on real Soft-RoCE, inside the rxe VM, driven
# through build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/fi.sh
#
#   1   fi-msg over verbs, FI_MSG_CLIENTS (1500, one client agent: 3 fds an
#       endpoint, past the guest's 4,096, so rdmacap must give the agent
#       room, harness/point/layout.c): 100%, every payload verified,
#       the server accepted each (srv_accepted), one QP, CQ and MR per endpoint
#       on each side in RDMA netlink, counters back at the baseline
#   2   fi-msg --cq shared, 1500 clients in one agent: 100%, verified; a CQ
#       per 1,024 endpoints on each side (agents/fi/fab.h), so 2
#   3   fi-rdm over verbs;ofi_rxm with libfabric's defaults: a SKIP (exit 4)
#       naming the CQ depth ofi_rxm asks (262144), the device's max_cqe and
#       rxm_ep_msg_cq_open; a provider that fits rxe one day fails it
#   4   the same with FI_UNIVERSE_SIZE=64 (a CQ of 16384), FI_RDM_CLIENTS (20):
#       100%, verified; the verbs objects ofi_rxm makes beneath N endpoints:
#       a QP per endpoint on each side, a CQ per client endpoint and one for
#       the server's, counters back
#   5   FI_RDM_PEERS (200) clients on the one server endpoint: each peer's
#       connection reserves rx 128 of the CQ ofi_rxm makes beneath it, so
#       FI_UNIVERSE_SIZE=127 (a CQ of 32512: 253 peers keep a send credit;
#       64 holds 127: rdma/fiprov.h) and FI_OFI_RXM_BUFFER_SIZE=512 (its pools
#       of 1,024 buffers a client endpoint): 100%, verified, the server
#       accepted each, a QP per endpoint on each side
#   6   the same 200 peers with FI_UNIVERSE_SIZE=64 (a CQ of 16384: 127 peers
#       keep a send credit): the run fails, its cause naming the server's
#       EAGAIN, the CQ and the 127 peers (rdma/fiprov.h)
#   7   fi-rdm over tcp;ofi_rxm, FI_RDM_CLIENTS: 100%, verified
#   8   vm.max_map_count lowered to 1000 (system-wide, put back after), one
#       client agent, --cq shared, 600 clients: fewer connect, the first
#       failure fi_enable ENOMEM, the cause naming vm.max_map_count=1000
#   9   the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   FI_MSG_CLIENTS  the clients of test 1 (1500)
#   FI_RDM_CLIENTS  the clients of tests 4 and 6 (20; each rdm endpoint costs
#                   ofi_rxm ~40 MB, docs/designs.md)
#   FI_RDM_PEERS    the clients of test 5 (200)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

RDC_TIMEOUT=900
MSG_N=${FI_MSG_CLIENTS:-1500}
SHARED_N=1500
RDM_N=${FI_RDM_CLIENTS:-20}
RDM_PEERS=${FI_RDM_PEERS:-200}
MAPS=1000

RDC_POINT_SHOW='connected|msgs|srv_acc|srv_dev|cli_dev|cause'

# fi_run NAME ARGS...: rdmacap run ARGS on the pair topology (rdc_point)
fi_run() {
	rdc_point "$W/$1" run --topology pair "${@:2}"
}

# fi_back: why grows unless the counters came back to the baseline
fi_back() {
	grep -q "ok 4 RDMA resources back to baseline$" "$OUT" || why+=" not back to baseline"
}

# fi_delta SIDE QP CQ: why grows unless SIDE's device delta is QP QPs and CQ CQs
fi_delta() {
	rdc_fig_is "$1_dev_delta" qp "$2" || why+=" $1 qp delta not $2"
	rdc_fig_is "$1_dev_delta" cq "$3" || why+=" $1 cq delta not $3"
}

MAPS_WAS=
fi_cleanup() {
	[ -n "$MAPS_WAS" ] && sysctl -qw vm.max_map_count="$MAPS_WAS"
	rdc_rxe_suite_cleanup
}

rdc_rxe_suite fi-suite "" fi_info
trap fi_cleanup EXIT
tap_plan 9
BASE=$(rdc_res)

fi_run msg --transport fi-msg --clients "$MSG_N" --agents 1
why=$(rdc_carried_why "$MSG_N")
[ "$(rdc_kv srv_accepted)" = "$MSG_N" ] || why+=" srv_accepted=$(rdc_kv srv_accepted)"
fi_delta srv "$MSG_N" "$MSG_N"
fi_delta cli "$MSG_N" "$MSG_N"
rdc_fig_is srv_dev_delta mr "$MSG_N" || why+=" srv mr delta not $MSG_N"
fi_back
if [ -z "$why" ]; then
	tap_ok "fi-msg over verbs, $MSG_N clients: 100%, verified, a QP, CQ and MR per endpoint on each side, back to baseline"
else
	tap_fail "fi-msg over verbs, $MSG_N clients" "$why"
fi

# one agent past the endpoints one shared CQ serves (agents/fi/fab.h FAB_CQ_EPS,
# 1,024: their receives reserve half its entries, their sends take the rest);
# the next 1,024 get a CQ of their own
fi_run msg-shared --transport fi-msg --clients "$SHARED_N" --cq shared --agents 1
why=$(rdc_carried_why "$SHARED_N")
fi_delta srv "$SHARED_N" 2
fi_delta cli "$SHARED_N" 2
fi_back
if [ -z "$why" ]; then
	tap_ok "fi-msg --cq shared, $SHARED_N clients in one agent: 100%, verified, 2 CQs on each side"
else
	tap_fail "fi-msg --cq shared, $SHARED_N clients in one agent" "$why"
fi

fi_run rdm-default --transport fi-rdm --fi-provider 'verbs;ofi_rxm' --clients 4
if [ "$RC" = 4 ] && grep -q "SKIP verbs;ofi_rxm" "$OUT" && grep -q "262144 entries" "$OUT" &&
	grep -q "max_cqe 32767" "$OUT" && grep -q rxm_ep_msg_cq_open "$OUT"; then
	tap_ok "fi-rdm over verbs;ofi_rxm, libfabric's defaults: SKIP naming 262144 CQ entries above max_cqe 32767 (rxm_ep_msg_cq_open)"
else
	tap_fail "fi-rdm over verbs;ofi_rxm, defaults" "exit $RC; $(grep -m1 -E 'SKIP|why|cause' "$OUT")"
fi

export FI_UNIVERSE_SIZE=64
fi_run rdm-verbs --transport fi-rdm --fi-provider 'verbs;ofi_rxm' --clients "$RDM_N" --timeout 300
unset FI_UNIVERSE_SIZE
why=$(rdc_carried_why "$RDM_N")
fi_delta cli "$RDM_N" "$RDM_N"
fi_delta srv "$RDM_N" 1
fi_back
if [ -z "$why" ]; then
	tap_ok "fi-rdm over verbs;ofi_rxm, FI_UNIVERSE_SIZE=64, $RDM_N clients: 100%, verified; beneath: a QP per endpoint on each side, $RDM_N client CQs, 1 server CQ, mr client $(rdc_line_kv cli_dev_delta mr) server $(rdc_line_kv srv_dev_delta mr)"
else
	tap_fail "fi-rdm over verbs;ofi_rxm, FI_UNIVERSE_SIZE=64" "$why"
fi

export FI_UNIVERSE_SIZE=127 FI_OFI_RXM_BUFFER_SIZE=512
fi_run rdm-peers --transport fi-rdm --fi-provider 'verbs;ofi_rxm' --clients "$RDM_PEERS" \
	--msgs 5 --timeout 300
unset FI_UNIVERSE_SIZE FI_OFI_RXM_BUFFER_SIZE
why=$(rdc_carried_why "$RDM_PEERS")
[ "$(rdc_kv srv_accepted)" = "$RDM_PEERS" ] || why+=" srv_accepted=$(rdc_kv srv_accepted)"
fi_delta cli "$RDM_PEERS" "$RDM_PEERS"
fi_delta srv "$RDM_PEERS" 1
fi_back
if [ -z "$why" ]; then
	tap_ok "fi-rdm over verbs;ofi_rxm, $RDM_PEERS peers on one server endpoint, FI_UNIVERSE_SIZE=127: 100%, verified, each accepted"
else
	tap_fail "fi-rdm over verbs;ofi_rxm, $RDM_PEERS peers on one server endpoint" "$why"
fi

export FI_UNIVERSE_SIZE=64 FI_OFI_RXM_BUFFER_SIZE=512
# a peer whose hello is never answered waits out the connect phase: keep it short
fi_run rdm-credit --transport fi-rdm --fi-provider 'verbs;ofi_rxm' --clients "$RDM_PEERS" \
	--msgs 5 --timeout 30
unset FI_UNIVERSE_SIZE FI_OFI_RXM_BUFFER_SIZE
why=
[ "$RC" = 1 ] || why+=" exit $RC"
grep -q "cause=server EAGAIN.*16384 entries.*127 peers leave its sends a credit" "$OUT" ||
	why+=" cause: $(grep -m1 -oE 'cause=.{0,120}' "$OUT")"
fi_back
if [ -z "$why" ]; then
	tap_ok "fi-rdm, $RDM_PEERS peers on one server endpoint, FI_UNIVERSE_SIZE=64: fails, named: server EAGAIN, a CQ of 16384 entries, 127 peers"
else
	tap_fail "fi-rdm, $RDM_PEERS peers on one server endpoint, FI_UNIVERSE_SIZE=64" "$why"
fi

fi_run rdm-tcp --transport fi-rdm --fi-provider 'tcp;ofi_rxm' --clients "$RDM_N" --timeout 300
why=$(rdc_carried_why "$RDM_N")
if [ -z "$why" ]; then
	tap_ok "fi-rdm over tcp;ofi_rxm, $RDM_N clients: 100%, verified"
else
	tap_fail "fi-rdm over tcp;ofi_rxm" "$why"
fi

MAPS_WAS=$(sysctl -n vm.max_map_count)
sysctl -qw vm.max_map_count=$MAPS
fi_run maps --transport fi-msg --agents 1 --cq shared --clients 600 --msgs 1
sysctl -qw vm.max_map_count="$MAPS_WAS"
MAPS_WAS=
why=
[ "$RC" = 1 ] || why+=" exit $RC"
[ "$(rdc_kv connected)" -lt 600 ] 2>/dev/null || why+=" connected=$(rdc_kv connected)"
grep -q "# cause=fi_enable ENOMEM.*vm.max_map_count=$MAPS" "$OUT" || why+=" cause: $(grep -m1 '# cause=' "$OUT")"
if [ -z "$why" ]; then
	tap_ok "fi-msg under vm.max_map_count=$MAPS, one client agent: $(rdc_kv connected) of 600, fi_enable ENOMEM named by the knob"
else
	tap_fail "fi-msg under vm.max_map_count=$MAPS" "$why"
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
