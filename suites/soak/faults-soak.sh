#!/bin/bash
# SPDX-License-Identifier: MIT
#
# faults-soak.sh [rxe|siw]: random designs under a random --fault, run by the
# ASan+UBSan build of both programs (build/san, `make san`), in one VM boot:
# rxe (the default) SOAK_POINTS (100) points, numbered 1.., on the sid kernel;
# siw SOAK_SIW_POINTS (10) points, numbered 1001.., on Soft-iWARP, which needs
# the LTS kernel's boot (make vm-siw). `make soak` boots both, one after the
# other, with one SOAK_SEED:
#
#   vm/run --mem 4G --share $PWD -- suites/soak/faults-soak.sh rxe
#   vm/run --kernel build/vm/kernel/bookworm --mem 4G --share $PWD -- \
#       suites/soak/faults-soak.sh siw
#
# A point draws where it runs: --topology pair (half the points), star:2, host (an
# rxe link on a veth in the VM's root namespace that the soak makes, as a driver
# would, --server-addr its address, --device half the time) or --hosts (three
# network namespaces standing in for machines, suites/lib/nodes.sh, each with its
# sshd and its rxe; --launcher ssh, mpirun or srun); pair and star take
# --family 6 one time in four. srun points run under `salloc -N 3` with --hosts
# slurm (slurm:nK/DEV, one node's device named, half the RDMA ones) on a Slurm
# cluster of the same three nodes (suites/lib/slurm.sh, as suites/vm/slurm.sh
# makes it), started for the first point that draws srun (three nodes idle 2-3 s
# after) and stopped, by PID, at the end. Then the design: --transport
# tcp|rc|uc|ud|nvmf|srp|fi-msg|fi-rdm; nvmf and srp (the kernel's NVMe-oF and
# SRP target and initiator, which open their rdma_cm ids in the root namespace)
# on host, with --nvme-io-queues 1-4 and --nvme-queue-size 32|128 for nvmf;
# fi-msg and fi-rdm (libfabric's verbs provider) with --cq per-conn|shared,
# --poll event|busy and for fi-rdm --srq (run with FI_UNIVERSE_SIZE=64 and
# FI_OFI_RXM_BUFFER_SIZE=512: ofi_rxm's defaults ask a CQ deeper than rxe's
# max_cqe, docs/designs.md); for tcp, rc, uc and ud
# --server-model event|thread; for rc and uc
# --cm oob-tls|rdmacm, --op send|write|read|atomic (uc: send|write), --cq
# per-conn|shared, --srq, --qp-share 2|4, --mr shared (the thread server:
# oob-tls, a CQ per connection, no SRQ); for ud --cm and --ah cache|wc|lru|peer;
# and one --fault of every kind with random figures (host and --hosts: the kill
# and stop faults; the link and netem ones need rdmacap's own links). A draw
# the tool refuses (exit 2 from its command-line checks, before anything
# exists) is drawn again and counted, never run: the refusals are printed by
# reason at the end. A kernel-service point also leaves no NVMe controller,
# nvmet or LIO entry, null_blk disk or SCSI host (suites/lib/kserv.sh), and its
# devices' counters but CQs are back (ib_core's shared CQ pool, which nvmet-rdma
# and ib_srpt draw from, stays with the device: the soak's baseline takes it).
#
# A siw point: a siw link on each end of a veth pair in the VM's root namespace
# (siw ignores netdevs outside init_net), --topology host, --server-addr the
# first link's address, --device half the time; one point in three nvmf (with
# its draws above), else rc over rdmacm with the event
# server (iWARP has no oob-tls, uc, ud or atomics: rdma/cap.h; the thread
# server takes oob-tls only), --op send|write|read, --cq per-conn|shared,
# --srq, --mr shared, --qp-share 2|4 with write and read (a shared QP's SEND
# carries its client's id as an immediate, which iWARP has not); the kill and
# stop faults.
#
# A point passes when it ends within its bound (no hang), exits 0 (its checks,
# the fault's included), wrote its TAP whole (version, plan, one result, totals)
# and its JSON with the point's figures (both also when it failed), has its
# device counters back at the baseline (resources.leak false, and with --hosts
# every host's back_at_base), every RDMA device of the VM at the counters it had
# before the soak, logged no sanitizer report and no leak (LeakSanitizer on),
# and left nothing on any host: no rdc namespace, link or rxe device, no agent,
# no netem qdisc, no --hosts run directory, no Slurm job. A failing point names what broke and
# the cause the run gave; a failed run that names no cause is a failure of its
# own. What a failed point left is removed (rdmacap down) so the next starts clean.
#
# One line per point says its seed, number, result, time and command; a table of
# every point ends the run. The random seed is printed first. Each point draws from its
# own generator (seeded from SOAK_SEED and its number), so SOAK_ONLY=K with the
# same SOAK_SEED re-runs point K alone in its boot (rxe below 1001, siw from
# 1001), with the same design and fault (SOAK_ONLY=K,L,... those points).
# SOAK_LAUNCHER=ssh|mpirun|srun makes every rxe point a --hosts point under that
# launcher, the rest drawn from the random seed: an aid to exercise one launcher
# (the points then differ from what SOAK_SEED alone draws). SOAK_TRANSPORT=T does
# the same for one transport of the rxe boot (nvmf and srp points stay on host).
#
# Not in `make check`: about 21 s per point under TCG on average, 70-120 s for
# --hosts under mpirun (seed 20261126: 70 points in 1,449 s), 27-32 s under
# srun; a siw point 2-9 s (seed 20261126: 10 in 92 s).
#   SOAK_POINTS (100, rxe)  SOAK_SIW_POINTS (10, siw)  SOAK_SEED (the date)
#   SOAK_ONLY (every point; K or K,L,...)  SOAK_BOUND (120 s per point)
#   SOAK_LAUNCHER (drawn)  SOAK_TRANSPORT (drawn)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=../lib/nic.sh
. "$(dirname "$0")/../lib/nic.sh"
# shellcheck source=../lib/nodes.sh
. "$(dirname "$0")/../lib/nodes.sh"
# shellcheck source=../lib/slurm.sh
. "$(dirname "$0")/../lib/slurm.sh"
# shellcheck source=../lib/kserv.sh
. "$(dirname "$0")/../lib/kserv.sh"

POINTS=${SOAK_POINTS:-100}
SIW_POINTS=${SOAK_SIW_POINTS:-10}
# siw points are numbered from here: generators of their own, and SOAK_ONLY
# says which boot a point belongs to (rxe points 1..1000)
SIW_FIRST=1001
FIX_LAUNCHER=${SOAK_LAUNCHER:-}
FIX_TRANSPORT=${SOAK_TRANSPORT:-}
SEED=${SOAK_SEED:-$(date +%s)}
ONLY=${SOAK_ONLY:-}
BOUND=${SOAK_BOUND:-120}
SAN=$RDC_ROOT/build/san
# redraws of one point before it is called a failure: 8 refusals in a row of a
# generator that mostly draws valid designs means the checks refuse too much
REDRAWS=8
# the soak's own fixtures: not rdc-named, so rdc_leftovers sees only rdmacap's
NIC=sknic
NICDEV=skrxe
NICADDR=10.79.0.1
NODENET=10.78.1
PEERDEV=
PEERADDR=10.79.0.2
FABRIC=rxe
FIRST=1
N=0
ALLOC=()
ENVS=()
SRUN=
SLURM_DIR=
HOSTS_RDMA=
HOSTS_TCP=
MPIRUN=
BASE_RES=
BASE_KSRES=
BASE_KS=
KSERV=
W=
declare -A REFUSED=()
NREFUSED=0
TABLE=()
NFAIL=0

cleanup() {
	soak_slurm_cancel
	nodes_remove "${NODE_SSHD[@]}" "${SLURM_DAEMONS[@]}"
	rdc_nic_down "$NIC" "$NICDEV" ${PEERDEV:+"$PEERDEV"}
	[ -n "$W" ] && rm -rf "$W"
	return 0
}

# pick WORD...: one of the words in P, from the point's generator (no subshell:
# bash reseeds RANDOM in each one, and the point would not draw the same again)
pick() {
	P=${*:RANDOM % $# + 1:1}
}

# draw_fault WHERE: one --fault of every kind the topology can take
draw_fault() {
	if [ "$1" = host ] || [ "$1" = hosts ]; then
		pick kill-client kill-server stop-server
	else
		pick kill-client kill-server stop-server link-down loss delay reorder
	fi
	case $P in
	kill-client) P=kill-client:$((1 + RANDOM % 2)) ;;
	stop-server) P=stop-server:$((500 + RANDOM % 1500)) ;;
	link-down)
		P=link-down:$((500 + RANDOM % 1500))
		((RANDOM % 2)) && P+=:server
		;;
	loss) pick loss:1 loss:5 loss:10 ;;
	delay) P=delay:$((1 + RANDOM % 20)):$((RANDOM % 5)) ;;
	reorder) pick reorder:10 reorder:20 reorder:50 ;;
	esac
	ARGS+=(--fault "$P")
}

# draw: one point's options in ARGS (an array), from the point's generator
draw() {
	local tr where model cm

	ALLOC=()
	ENVS=()
	[ "$FABRIC" = siw ] && { draw_siw; return; }
	pick pair pair pair star:2 host hosts
	where=$P
	[ -z "$FIX_LAUNCHER" ] || where=hosts
	pick tcp rc uc ud nvmf srp fi-msg fi-rdm
	[ -z "$FIX_TRANSPORT" ] || P=$FIX_TRANSPORT
	tr=$P
	ARGS=(--transport "$tr")
	case $tr in
	nvmf | srp)
		# their rdma_cm ids live in the root namespace: the host topology
		KSERV=1
		draw_kserv "$tr"
		draw_fault host
		return
		;;
	esac
	case $where in
	host)
		ARGS+=(--topology host --server-addr "$NICADDR")
		[ "$tr" != tcp ] && ((RANDOM % 2)) && ARGS+=(--device "$NICDEV")
		;;
	hosts) draw_hosts "$tr" ;;
	*)
		ARGS+=(--topology "$where")
		((RANDOM % 4 == 0)) && ARGS+=(--family 6)
		;;
	esac
	pick event thread
	model=$P
	case $tr in
	fi-*) model=event ;;
	esac
	ARGS+=(--server-model "$model")
	case $tr in
	rc | uc)
		# the thread server: --cq per-conn, no --srq, --cm oob-tls (opt_thread_rules)
		cm=oob-tls
		[ "$model" = event ] && pick oob-tls oob-tls rdmacm && cm=$P
		ARGS+=(--cm "$cm")
		if [ "$tr" = uc ]; then pick send write; else pick send write read atomic; fi
		ARGS+=(--op "$P")
		if [ "$model" = event ]; then
			pick per-conn shared
			ARGS+=(--cq "$P")
			((RANDOM % 3 == 0)) && ARGS+=(--srq)
		fi
		pick 2 4
		((RANDOM % 3 == 0)) && ARGS+=(--qp-share "$P")
		((RANDOM % 3 == 0)) && ARGS+=(--mr shared)
		;;
	ud)
		pick oob-tls oob-tls rdmacm
		ARGS+=(--cm "$P")
		pick cache wc lru peer
		ARGS+=(--ah "$P")
		;;
	fi-msg | fi-rdm)
		pick per-conn shared
		ARGS+=(--cq "$P")
		pick event busy
		ARGS+=(--poll "$P")
		[ "$tr" = fi-rdm ] && ((RANDOM % 3 == 0)) && ARGS+=(--srq)
		[ "$tr" = fi-rdm ] && ENVS=(FI_UNIVERSE_SIZE=64 FI_OFI_RXM_BUFFER_SIZE=512)
		;;
	esac
	draw_fault "$where"
}

# draw_kserv TR: a kernel-service point on the root namespace's NIC (--device
# half the time); nvmf's queues per controller and their depth
draw_kserv() {
	ARGS+=(--topology host --server-addr "$NICADDR")
	((RANDOM % 2)) && ARGS+=(--device "$NICDEV")
	[ "$1" = nvmf ] || return 0
	ARGS+=(--nvme-io-queues $((1 + RANDOM % 4)))
	pick 32 128
	ARGS+=(--nvme-queue-size "$P")
}

# draw_hosts TR: a --hosts point's hosts and launcher: ssh, mpirun (when
# installed) or srun (when Slurm is: `salloc -N 3` around rdmacap, the agents
# job steps on nodes n0-n2, --hosts slurm naming one node's device half the
# time, the server on n0)
draw_hosts() {
	local k

	pick ssh mpirun srun
	[ -z "$FIX_LAUNCHER" ] || P=$FIX_LAUNCHER
	if [ "$P" = srun ] && [ -n "$SRUN" ]; then
		k=$((RANDOM % 3))
		if [ "$1" != tcp ] && ((RANDOM % 2)); then
			ARGS+=(--hosts "slurm:n$k/${NODE_DEV[$k]}")
		else
			ARGS+=(--hosts slurm)
		fi
		ARGS+=(--launcher srun --server-addr "${NODE_ADDR[0]}")
		ALLOC=(salloc -Q -N 3)
		return
	fi
	ARGS+=(--hosts "$([ "$1" = tcp ] && echo "$HOSTS_TCP" || echo "$HOSTS_RDMA")")
	[ -n "$MPIRUN" ] && [ "$P" = mpirun ] && ARGS+=(--launcher mpirun)
}

# draw_siw: a siw point, what iWARP offers on the host topology: rc over
# rdmacm (no oob-tls, uc, ud or atomics: rdma/cap.h), so the event server
# (the thread server takes oob-tls only); --op send|write|read, --cq, --srq,
# --mr shared; --qp-share with write and read only (a shared QP's SEND carries
# its client's id as an immediate, which iWARP has not); the kill and stop
# faults (the link and netem ones need rdmacap's own links)
draw_siw() {
	local op cq

	# the op third: bash's first values after seeding follow the point's number
	pick per-conn shared
	cq=$P
	if ((RANDOM % 3 == 0)); then
		ARGS=(--transport nvmf)
		KSERV=1
		draw_kserv nvmf
		draw_fault host
		return
	fi
	ARGS=(--transport rc --topology host --server-addr "$NICADDR")
	((RANDOM % 2)) && ARGS+=(--device "$NICDEV")
	pick send write read
	op=$P
	ARGS+=(--server-model event --cm rdmacm --op "$op" --cq "$cq")
	((RANDOM % 3 == 0)) && ARGS+=(--srq)
	pick 2 4
	[ "$op" != send ] && ((RANDOM % 3 == 0)) && ARGS+=(--qp-share "$P")
	((RANDOM % 3 == 0)) && ARGS+=(--mr shared)
	draw_fault host
}

# refused ERRFILE SECS: the run's exit 2 is a refusal by design: the command-line
# checks' one "rdmacap run: " line, in under 10 s, nothing created
refused() {
	local why

	why=$(head -n 1 "$1")
	[[ $why == "rdmacap run: "* ]] && [ "$2" -lt 10 ] && [ -z "$(rdc_leftovers)" ] || return 1
	why=${why#rdmacap run: }
	REFUSED[$why]=$((${REFUSED[$why]:-0} + 1))
	NREFUSED=$((NREFUSED + 1))
}

# json_why JSON: what the point's JSON says is wrong ("" when nothing)
json_why() {
	jq -r '.points[0] as $p | if $p == null then "no point in the JSON" else
		[ (if $p.ok != true then "verdict \($p.verdict): \($p.why // "")" else empty end),
		  (if $p.resources.leak == true then "counters not back: \($p.resources.leak_what)"
		   else empty end),
		  (if ($p.hosts // [] | map(select(.back_at_base != true)) | length) > 0 then
		   "counters not back on host(s) \($p.hosts | map(select(.back_at_base != true) | .host) | join(","))"
		   else empty end),
		  (if ($p.clients // 0) < 1 then "no figures" else empty end) ] | join("; ")
		end' "$1" 2>/dev/null || echo "JSON unreadable"
}

# tap_why TAP: what the point's TAP lacks of a whole run ("" when nothing)
tap_why() {
	local w=
	grep -q '^TAP version 13$' "$1" || w+=" no TAP version"
	grep -q '^1\.\.1$' "$1" || w+=" no plan"
	grep -qE '^(not )?ok 1 ' "$1" || w+=" no result"
	grep -q '^# Totals: ' "$1" || w+=" no totals"
	[ -z "$w" ] || echo "TAP not whole:$w"
}

# counters_why: the VM's RDMA devices not at the counters of before the soak
# (rdma_cm's ids go a moment after their process: up to 3 s); after a
# kernel-service point but the CQs, then the baseline takes the CQs the
# kernel's pool kept
counters_why() {
	local now i base=$BASE_RES

	[ -z "$KSERV" ] || base=$BASE_KSRES
	for ((i = 0; i < 30; i++)); do
		if [ -z "$KSERV" ]; then now=$(rdc_res); else now=$(rdc_ks_res); fi
		if [ "$now" = "$base" ]; then
			[ -z "$KSERV" ] || BASE_RES=$(rdc_res)
			return 0
		fi
		sleep 0.1
	done
	echo "devices not at the soak's baseline: $(diff <(echo "$base") <(echo "$now") |
		grep '^[<>]' | tr '\n' ';')"
}

one() {
	local k=$1 out=$W/$1.tap err=$W/$1.err json=$W/$1.json rc t0 dt why='' left tries=0
	local desc cause res

	RANDOM=$(((SEED + k * 7919) & 0x7fffffff))
	while :; do
		KSERV=
		draw
		desc="soak $k: ${ENVS[*]}${ENVS[*]:+ }${ARGS[*]}"
		soak_slurm_up
		rm -f "$json"
		t0=$SECONDS
		rdc_timeout "$BOUND" "${ALLOC[@]}" env "${ENVS[@]}" "$SAN/rdmacap" run "${ARGS[@]}" \
			--clients 10 --agents 2 \
			--msgs 20 --think-ms 100 --json "$json" >"$out" 2>"$err"
		rc=$?
		dt=$((SECONDS - t0))
		[ "$rc" = 2 ] && refused "$err" "$dt" && ((++tries < REDRAWS)) && continue
		break
	done
	tap_kv "point_$k" "exit=$rc wall_s=$dt redrawn=$tries $(grep -m1 -oE \
		'fault_survived=[0-9]+ fault_failed=[0-9]+' "$out")"
	if [ "$rc" = 4 ]; then
		why=$(grep -m1 -oE 'SKIP.*' "$out" | cut -c6-)
		tap_result skip "$desc" "$why"
		TABLE+=("$k|skip|$dt|${ARGS[*]}|$why")
		return
	fi
	case $rc in
	0) ;;
	2) why+=" refused $tries times in a row: $(head -n 1 "$err")" ;;
	124 | 137) why+=" hang: killed at $BOUND s" ;;
	*) why+=" exit $rc" ;;
	esac
	if [ "$rc" != 2 ]; then
		why+=" $(tap_why "$out") $(json_why "$json")"
		cause=$(jq -r '.points[0].cause // ""' "$json" 2>/dev/null)
		[ "$rc" = 0 ] || [ -n "$cause" ] || why+=" no cause named"
	fi
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
		grep -m3 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$err" | sed 's/^/# san: /'
		why+=" sanitizer report"
	fi
	left=$(rdc_leftovers | tr '\n' ' ')
	[ "$(nodes_run_dirs)" = 0 ] || left+="$(nodes_run_dirs) run directories of --hosts"
	left+=$(soak_slurm_left)
	[ "$(rdc_ks_left)" = "$BASE_KS" ] ||
		left+=" $(diff <(echo "$BASE_KS") <(rdc_ks_left) | grep '^>' | tr '\n' ' ')"
	[ -z "$left" ] || why+=" left: $left"
	res=$(counters_why)
	[ -z "$res" ] || why+=" $res"
	why=$(echo "$why" | tr -s ' ')
	why=${why## }
	why=${why%% }
	if [ -n "$why" ]; then
		tap_diag "failed: $why; cause: ${cause:-}"
		# what it left goes, so that the next point starts as the first did
		[ -z "$left" ] || "$SAN/rdmacap" down --hosts "$HOSTS_TCP" >/dev/null 2>&1
		[ -z "$left" ] || "$SAN/rdmacap" down >/dev/null 2>&1
		[ -z "$left" ] || soak_slurm_cancel
		NFAIL=$((NFAIL + 1))
	fi
	tap_diag "seed=$SEED point=$k $([ -z "$why" ] && echo pass || echo FAIL) ${dt}s: ${ENVS[*]}${ENVS[*]:+ }rdmacap run ${ARGS[*]}"
	TABLE+=("$k|$([ -z "$why" ] && echo pass || echo FAIL)|$dt|${ARGS[*]}|$why${cause:+ (cause: $cause)}")
	rdc_result "$([ -z "$why" ] && echo 0 || echo 1)" "$desc" "$out" "$err"
}

# the fixtures every point may use: the root namespace's NIC, the three nodes
setup() {
	rdc_nic_up "$NIC" rxe "$NICDEV" "$NICADDR" || return 1
	RDC_WHY="nodes: namespaces, rxe or sshd failed"
	nodes_make sk "$NODENET" 3 && nodes_sshd "$W" || return 1
	HOSTS_TCP="${NODE_ADDR[0]},${NODE_ADDR[1]},${NODE_ADDR[2]}"
	HOSTS_RDMA="${NODE_ADDR[0]}/${NODE_DEV[0]},${NODE_ADDR[1]}/${NODE_DEV[1]},${NODE_ADDR[2]}/${NODE_DEV[2]}"
	MPIRUN=$(command -v mpirun)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	soak_slurm_find
	RDC_WHY=
}

# the fixture of the siw points: a siw link on each end of a veth pair in the
# root namespace (siw ignores netdevs outside init_net), as
# suites/vm-lts/iwarp.sh makes them
setup_siw() {
	NICDEV=sksiwa
	PEERDEV=sksiwb
	rdc_nic_up "$NIC" siw "$NICDEV" "$NICADDR" "$PEERDEV" "$PEERADDR"
}

soak_have_siw() {
	modprobe -n siw >/dev/null 2>&1 && return 0
	RDC_WHY="no siw module for $(uname -r) (make vm-siw builds it for the LTS kernel)"
	return 1
}

# soak_slurm_find: SRUN when munge and Slurm are installed (else srun is not drawn)
soak_slurm_find() {
	local c

	for c in munged slurmctld slurmd salloc sinfo squeue scancel; do
		command -v "$c" >/dev/null || return 0
	done
	SRUN=$(command -v srun)
}

# soak_slurm_up: the Slurm cluster of the nodes (suites/lib/slurm.sh), started
# for the first point that draws srun, so that a soak that draws none runs no
# Slurm daemon; three nodes idle 2-3 s after the start in the VM, 120 s is the
# bound. A cluster that does not come up ends the soak (Bail out!)
soak_slurm_up() {
	local t0=$SECONDS

	[ ${#ALLOC[@]} -gt 0 ] && [ -z "$SLURM_DIR" ] || return 0
	SLURM_DIR=$W/slurm
	if mkdir -m 755 "$SLURM_DIR" && slurm_up "$SLURM_DIR" sk "$NODENET.254" &&
		rdc_wait_for 120 slurm_idle 3; then
		tap_kv slurm "nodes=3 up_s=$((SECONDS - t0))"
		return 0
	fi
	# the daemons' own last words, for the Bail's reader
	tail -n 3 "$SLURM_DIR"/munged.err "$SLURM_DIR"/slurmctld.out "$SLURM_DIR"/slurmctld.log \
		"$SLURM_DIR"/slurmd0.out 2>&1 | sed 's/^/# /'
	tap_bail "Slurm on the soak's nodes: not 3 idle nodes $((SECONDS - t0)) s after its start" \
		"(sinfo: $(sinfo -h -N -o '%N %T' 2>&1 | paste -sd';' -))"
	exit 1
}

soak_slurm_nojob() { [ -z "$(slurm_jobs)" ]; }

# soak_slurm_left: the jobs a point left in the cluster; salloc's job ends
# with it, and leaves squeue once its nodes have cleaned up (15 s at most)
soak_slurm_left() {
	[ -n "$SLURM_DIR" ] || return 0
	rdc_wait_for 15 soak_slurm_nojob && return 0
	echo " slurm jobs $(slurm_jobs | paste -sd, -)"
}

# soak_slurm_cancel: the jobs a point left gone, so that the next starts clean
soak_slurm_cancel() {
	[ -z "$SLURM_DIR" ] || slurm_cancel
}

soak_usage() {
	echo "faults-soak.sh: $1" >&2
	cat >&2 <<-EOF
		usage: faults-soak.sh [rxe|siw]
		  rxe (default)  points 1..SOAK_POINTS (100, at most $((SIW_FIRST - 1))) on rxe: the sid kernel's boot
		  siw            points $SIW_FIRST..$((SIW_FIRST - 1))+SOAK_SIW_POINTS (10) on Soft-iWARP: the LTS kernel's boot
		  SOAK_SEED (the date)  SOAK_ONLY=K[,L...] (points of this boot)  SOAK_BOUND (120 s)
		  SOAK_LAUNCHER=ssh|mpirun|srun (rxe: every point a --hosts point under it)
		  SOAK_TRANSPORT=tcp|rc|uc|ud|nvmf|srp|fi-msg|fi-rdm (rxe: every point of it)
	EOF
	exit 2
}

# soak_args [rxe|siw]: the boot's fabric and its points; bad input exits 2
# with the usage, before anything exists
soak_args() {
	local k

	[ $# -le 1 ] || soak_usage "one argument at most"
	FABRIC=${1:-rxe}
	if ! [[ $POINTS =~ ^[0-9]+$ ]] || [ "$POINTS" -ge "$SIW_FIRST" ]; then
		soak_usage "SOAK_POINTS: not a count below $SIW_FIRST: $POINTS"
	fi
	[[ $SIW_POINTS =~ ^[0-9]+$ ]] || soak_usage "SOAK_SIW_POINTS: not a count: $SIW_POINTS"
	case $FIX_LAUNCHER in
	'' | ssh | mpirun | srun) ;;
	*) soak_usage "SOAK_LAUNCHER: not ssh, mpirun or srun: $FIX_LAUNCHER" ;;
	esac
	case $FIX_TRANSPORT in
	'' | tcp | rc | uc | ud | nvmf | srp | fi-msg | fi-rdm) ;;
	*) soak_usage "SOAK_TRANSPORT: not tcp, rc, uc, ud, nvmf, srp, fi-msg or fi-rdm: $FIX_TRANSPORT" ;;
	esac
	case $FABRIC in
	rxe) FIRST=1 N=$POINTS ;;
	siw) FIRST=$SIW_FIRST N=$SIW_POINTS ;;
	*) soak_usage "not a fabric: $FABRIC" ;;
	esac
	for k in ${ONLY//,/ }; do
		if ! [[ $k =~ ^[0-9]+$ ]] || [ "$k" -lt "$FIRST" ] ||
			{ [ "$FABRIC" = rxe ] && [ "$k" -ge "$SIW_FIRST" ]; }; then
			soak_usage "SOAK_ONLY: $k is not a point of the $FABRIC boot"
		fi
	done
}

main() {
	local k r t0=$SECONDS mods="rdma_rxe rdma_ucm sch_netem veth bridge"

	soak_args "$@"
	tap_init
	rdc_need rdc_have_root
	if [ "$FABRIC" = siw ]; then
		rdc_need soak_have_siw
		mods="siw ib_uverbs rdma_ucm veth"
	else
		rdc_need rdc_have_rxe
	fi
	rdc_need rdc_have_cmd jq
	[ -x "$SAN/rdmacap" ] || { tap_skip_all "$SAN/rdmacap not built (make san)"; exit 4; }
	# shellcheck disable=SC2086 # module names
	modprobe -a $mods || { tap_skip_all "modprobe $mods failed"; exit 4; }
	W=$(mktemp -d /tmp/soak.XXXXXX)
	chmod 755 "$W"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	if [ "$FABRIC" = siw ]; then setup_siw; else setup; fi ||
		{ tap_skip_all "soak fixtures: ${RDC_WHY:-failed}"; exit 4; }
	BASE_RES=$(rdc_res)
	BASE_KSRES=$(rdc_ks_res)
	BASE_KS=$(rdc_ks_left)
	export RDMACAP_AGENT=$SAN/rdmacap-agent
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
	tap_kv seed "$SEED"
	tap_diag "re-run one point: SOAK_SEED=$SEED SOAK_ONLY=K suites/soak/faults-soak.sh $FABRIC"
	if [ "$FABRIC" = rxe ]; then
		tap_diag "mpirun: ${MPIRUN:-none (--launcher mpirun not drawn)}"
		tap_diag "srun: ${SRUN:-none (munge or Slurm missing: --launcher srun not drawn)}"
	fi
	if [ -n "$ONLY" ]; then
		# shellcheck disable=SC2086 # a list of point numbers
		set -- ${ONLY//,/ }
		tap_plan $#
		for k; do
			one "$k"
		done
	else
		tap_plan "$N"
		for ((k = FIRST; k < FIRST + N; k++)); do
			one "$k"
		done
	fi
	tap_kv refused "$NREFUSED"
	for r in "${!REFUSED[@]}"; do
		tap_diag "refused ${REFUSED[$r]}x: $r"
	done
	tap_kv soak "seed=$SEED points=${#TABLE[@]} failed=$NFAIL wall_s=$((SECONDS - t0)) guest_load=$(cut -d' ' -f1-3 /proc/loadavg)"
	tap_diag "| point | result | s | rdmacap run ... | what broke (cause) |"
	for r in "${TABLE[@]}"; do
		tap_diag "| ${r//|/ | } |"
	done
}

main "$@"
tap_finished
