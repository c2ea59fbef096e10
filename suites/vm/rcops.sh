#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rcops.sh: --transport uc, --op read and --op atomic on real Soft-RoCE, inside
# the rxe VM, driven through build/rdmacap as a user runs it:
#
#   vm/run --share $PWD -- suites/vm/rcops.sh
#
# For each design D of "uc", "rc --op read", "rc --op atomic" and each client
# count N of RCOPS_CLIENTS, one `rdmacap run` on the pair topology:
#   100%, every round trip verified (uc: the echo; read: the server buffer's
#   payload of the connection; atomic: the counter's old value is the round
#   trips done before), none lost, the server's device delta exactly N QPs, 2N
#   CQs and 2N MRs (the rc model: one QP per client), counters back at the
#   baseline; atomic: the servers' counters sum to the round trips issued
#   (srv_atomics = msgs, compared by rdmacap itself)
# then
#   - uc --op read: exit 2, the reason named (UC has no READ or atomics)
#   - uc --cm rdmacm --op write: 100%, verified, the same server delta
#   - a limit per design: vm.max_map_count lowered to RCOPS_MAPS, one client
#     agent of RCOPS_LIMIT_N clients: each design stops short, the cause naming
#     ibv_create_* ENOMEM and vm.max_map_count; uc again with 1.5 x the maps
#     connects more (the limit moves with the knob). The sysctl is put back.
#   - the RDMA counters after the suite equal those before it
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
#
#   RCOPS_CLIENTS   client counts ("10 100")
#   RCOPS_MAPS      vm.max_map_count of the limit test (1200: about 260 connections)
#   RCOPS_LIMIT_N   clients of the limit test (500)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

MAPS=${RCOPS_MAPS:-1200}
LN=${RCOPS_LIMIT_N:-500}
RDC_TIMEOUT=600
read -ra COUNTS <<<"${RCOPS_CLIENTS:-10 100}"
DESIGNS=("--transport uc" "--transport rc --op read" "--transport rc --op atomic")

# op_run NAME ARGS...: rdmacap run ARGS on the pair topology (rdc_point)
op_run() {
	rdc_point "$W/$1" run --topology pair "${@:2}"
}

# op_check N: why the point of N clients is not what the design promises ("": it is)
op_check() {
	local n=$1 why

	why=$(rdc_carried_why "$n")
	rdc_fig_is srv_dev_delta qp "$n" || why+=" server qp delta not $n"
	rdc_fig_is srv_dev_delta cq $((2 * n)) || why+=" server cq delta not $((2 * n))"
	rdc_fig_is srv_dev_delta mr $((2 * n)) || why+=" server mr delta not $((2 * n))"
	grep -q "ok 4 RDMA resources back to baseline" "$OUT" || why+=" not back to baseline"
	echo "$why"
}

rdc_rxe_suite rcops-suite ""
OLD_MAPS=$(sysctl -n vm.max_map_count)
trap 'sysctl -qw vm.max_map_count="$OLD_MAPS"; rm -rf "$W"' EXIT
tap_plan $((${#COUNTS[@]} * ${#DESIGNS[@]} + 4))
BASE=$(rdc_res)

for d in "${DESIGNS[@]}"; do
	for n in "${COUNTS[@]}"; do
		# shellcheck disable=SC2086 # d is a list of words
		op_run "$(echo "$d" | tr -dc "[:lower:]")$n" $d --clients "$n"
		why=$(op_check "$n")
		case $d in *atomic*)
			[ "$(rdc_kv srv_atomics)" = "$(rdc_kv msgs)" ] ||
				why+=" srv_atomics=$(rdc_kv srv_atomics) msgs=$(rdc_kv msgs)" ;;
		esac
		if [ -z "$why" ]; then
			tap_ok "$d, $n clients: 100%, verified, server $n QPs/$((2 * n)) CQs/$((2 * n)) MRs, back to baseline"
		else
			tap_fail "$d, $n clients" "$why"
		fi
	done
done

rdc_rdmacap run --transport uc --op read --topology pair >"$W/ucread.tap" 2>"$W/ucread.err"
RC=$?
if [ "$RC" = 2 ] && grep -q "no RDMA READ or atomics" "$W/ucread.err"; then
	tap_ok "uc --op read: usage error, reason named"
else
	tap_fail "uc --op read" "exit $RC: $(head -c 200 "$W/ucread.err")"
fi

op_run ucwrite --transport uc --cm rdmacm --op write --clients 10
why=$(op_check 10)
if [ -z "$why" ]; then
	tap_ok "uc --cm rdmacm --op write, 10 clients: 100%, verified, server 10 QPs/20 CQs/20 MRs"
else
	tap_fail "uc --cm rdmacm --op write" "$why"
fi

# the limit of each design at MAPS, and of uc at 1.5 x MAPS (still below LN)
why=
lim=
for m in "$MAPS" $((MAPS * 3 / 2)); do
	for d in "${DESIGNS[@]}"; do
		[ "$m" = "$MAPS" ] || [ "$d" = "${DESIGNS[0]}" ] || continue
		sysctl -qw vm.max_map_count="$m" || why+=" sysctl"
		# shellcheck disable=SC2086 # d is a list of words
		op_run "lim$m$(echo "$d" | tr -dc "[:lower:]")" $d --agents 1 --clients "$LN" --msgs 2
		c=$(rdc_kv connected)
		lim+=" $d@$m:$c"
		[ "$RC" = 1 ] && [ "${c:-$LN}" -lt "$LN" ] || why+=" $d@$m: exit $RC connected=$c"
		[[ $(rdc_kv cause) == ibv_create_*ENOMEM*vm.max_map_count=$m* ]] ||
			why+=" $d@$m: cause '$(rdc_kv cause)'"
		[ "$m" = "$MAPS" ] && [ "$d" = "${DESIGNS[0]}" ] && c_uc=$c
	done
done
sysctl -qw vm.max_map_count="$OLD_MAPS"
[ "${c:-0}" -gt "${c_uc:-$LN}" ] || why+=" uc did not connect more with 1.5 x the maps"
tap_kv limits "$lim"
if [ -z "$why" ]; then
	tap_ok "limits at vm.max_map_count=$MAPS, 1 agent:$lim; cause vm.max_map_count, moves with it"
else
	tap_fail "limits at vm.max_map_count=$MAPS" "$why"
fi

rdc_res_back "$BASE"
tap_totals
exit "$(tap_exit_code)"
