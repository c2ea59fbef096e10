# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# bench/lib.sh: what bench/rc and bench/tcp share. Sourced; builds on
# suites/lib/common.sh (rdc_timeout, rdc_bg, rdc_kv_parse, tap.sh).
#
#   bn_init PART          settings from the environment, output dir, TAP header
#   bn_only GROUP         true when BENCH_ONLY (a comma list) is unset or names GROUP
#   bn_topo_up [--rxe]    `rdmacap up --topology pair` for the reference tools:
#                         BN_SNS/BN_SADDR/BN_SDEV, BN_CNS/BN_CADDR/BN_CDEV (server, client)
#   bn_topo_down          `rdmacap down --run` of that topology
#   bn_serve LOG NS CMD.. a reference server in NS, in the background (BN_SRV_PID)
#   bn_client LOG NS CMD.. a reference client in NS, bounded by BENCH_TIMEOUT
#   bn_listening NS PORT  true once something listens on TCP PORT in NS
#   bn_rdmacap LOG ARGS.. build/rdmacap with the deadline; its figures in RDC_KV
#   bn_sample CMP TOOL KIND VALUE UNIT REPORTED
#                         one JSON line in $BENCH_OUT/$PART.jsonl (bench/table),
#                         with BN_CMD (the command measured) and BN_REP; BN_REF=1
#                         marks an rdmacap row as the reference of its table
#   bn_parse_*            one parser per reference tool's text output
#
# Units: every sample's VALUE is a round trip in microseconds or connections per
# second, whatever the tool printed; REPORTED keeps the tool's own figure and unit.

# shellcheck source=../suites/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../suites/lib/common.sh"

# BENCH_REPEAT's default: five repeats give a median and a spread that one slow
# minute of a shared host cannot move alone (bench/run reads it here too)
BN_REPEAT_DEF=5
# a reference whose figure moves more than this factor between repeats is named
# beside its ratios (bench/table): they measure the host more than the tools
# shellcheck disable=SC2034 # read by bench/table, which sources this file
BN_VARIES=2

# bn_init PART: BENCH_* settings (the quick mode of `make check` shrinks them).
# shellcheck disable=SC2034 # the settings are read by bench/rc and bench/tcp
bn_init() {
	BN_PART=$1
	BN_REPEAT=${BENCH_REPEAT:-$BN_REPEAT_DEF}
	BN_ITERS=${BENCH_ITERS:-2000}
	BN_SIZES=${BENCH_SIZES:-64 4096}
	BN_CONNS=${BENCH_CONNS:-2000 10000}
	BN_THREADS=${BENCH_THREADS:-20000}
	BN_CPU_CLIENTS=${BENCH_CPU_CLIENTS:-10000}
	BN_CPU_MSGS=${BENCH_CPU_MSGS:-10}
	BN_SOCKPERF_S=${BENCH_SOCKPERF_S:-2}
	BN_TMO=${BENCH_TIMEOUT:-300}
	BN_OUT=${BENCH_OUT:-$RDC_ROOT/build/bench}
	BN_PORT=${BENCH_PORT:-18515}
	BN_ONLY=${BENCH_ONLY:-}
	BN_RUN=$(printf '%04x' $((($$ * 31 + 0xbe) & 0xffff)))
	BN_JSONL=$BN_OUT/$BN_PART.jsonl
	BN_LOGS=$BN_OUT/logs
	mkdir -p "$BN_LOGS"
	: >"$BN_JSONL"
	tap_init
	tap_kv repeat "$BN_REPEAT"
	tap_kv iters "$BN_ITERS"
	[ -z "$BN_ONLY" ] || tap_kv only "$BN_ONLY"
	tap_kv kernel "$(uname -r)"
}

# Groups (BENCH_ONLY=lat64,storm2000): latS (rc SEND/RECV round trips of S bytes: every
# --poll mode, ib_send_lat, ibv_rc_pingpong), eventS, busyS and adaptiveS (that --poll
# mode and ib_send_lat), writeS (rc RDMA WRITE, ib_write_lat), stormN (N connections
# at once: cmtime, rdmacap storm --cm rdmacm and oob-tls), threadsN (an rdmacm storm
# of N with --server-threads 2 over the same with 1), cpuN (the agents' CPU per
# round trip of each --poll mode at N clients against --poll event's), tcpS
# (bench/tcp), fiS (bench/fi: fi-msg beside fi_pingpong), nvmfN (bench/nvmf: N NVMe
# over RDMA controllers, rdmacap's beside a shell loop's). S and N come from
# BENCH_SIZES, BENCH_CONNS, BENCH_THREADS, BENCH_CPU_CLIENTS and BENCH_NVMF.
bn_only() {
	[ -z "$BN_ONLY" ] || [[ ",$BN_ONLY," == *",$1,"* ]]
}

bn_log() { echo "bench/$BN_PART: $*" >&2; }

# A sample: VALUE normalised (round-trip us, or connections/s), REPORTED as printed.
bn_sample() {
	jq -cn --arg cmp "$1" --arg tool "$2" --arg kind "$3" --argjson value "$4" \
		--arg unit "$5" --arg reported "$6" --argjson rep "$BN_REP" --arg cmd "$BN_CMD" \
		--argjson ref "${BN_REF:-0}" \
		'{cmp: $cmp, rep: $rep, tool: $tool, kind: $kind, value: $value, unit: $unit,
		  reported: $reported, cmd: $cmd} + if $ref == 1 then {ref: true} else {} end' >>"$BN_JSONL"
	tap_kv "$3" "$4 $5: $6 ($2)"
}

bn_topo_up() {
	local out
	out=$(rdc_rdmacap up --topology pair "$@" --run "$BN_RUN" 2>&1) || {
		printf '%s\n' "$out" >&2
		return 1
	}
	rdc_up_ends "$out" BN_
	[ -n "${BN_SNS-}" ] && [ -n "${BN_CNS-}" ]
}

bn_topo_down() {
	rdc_rdmacap down --run "$BN_RUN" >/dev/null 2>&1
}

bn_listening() {
	ip netns exec "$1" ss -Htln "sport = :$2" 2>/dev/null | grep -q .
}

# bn_wait_listen NS PORT: up to 30 s (a process start costs up to 1 s under TCG).
bn_wait_listen() {
	local i
	for ((i = 0; i < 300; i++)); do
		bn_listening "$1" "$2" && return 0
		kill -0 "$BN_SRV_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

bn_serve() {
	local log=$1 ns=$2
	shift 2
	RDC_BG_LOG=$log rdc_bg ip netns exec "$ns" "$@"
	BN_SRV_PID=$RDC_BG_PID
}

bn_client() {
	local log=$1 ns=$2
	shift 2
	BN_CMD=$*
	rdc_timeout "$BN_TMO" ip netns exec "$ns" "$@" >"$log" 2>&1
}

# Ends the reference servers of this step (ours only, by PID).
bn_stop() {
	rdc_bg_kill
	BN_SRV_PID=
}

bn_rdmacap() {
	local log=$1 rc=0
	shift
	BN_CMD="rdmacap $*"
	RDC_TIMEOUT=$BN_TMO rdc_rdmacap "$@" >"$log" 2>"$log.err" || rc=$?
	rdc_kv_parse <"$log"
	return $rc
}

# The RoCEv2 GID index of DEV for IPv4 ADDR, read in NS: ::ffff:a.b.c.d.
bn_gid() {
	local ns=$1 dev=$2 want f
	# shellcheck disable=SC2086 # the four octets as four arguments
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${3//./ })
	for f in $(ip netns exec "$ns" sh -c "grep -l '^$want\$' /sys/class/infiniband/$dev/ports/1/gids/* 2>/dev/null"); do
		f=${f##*/}
		if [ "$(ip netns exec "$ns" cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$f" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

# --- parsers: stdin is the tool's output; they print numbers or fail -------------

# perftest latency (ib_send_lat, ib_write_lat): the row under the "#bytes" header,
# one way in usec (RTT/2). Prints "t_typical p99".
bn_parse_perftest() {
	awk '/#bytes/ && /t_typical/ && /99% percentile/ { h = 1; next }
	     h && $1 ~ /^[0-9]+$/ && NF >= 8 { print $5, $8; ok = 1; exit }
	     END { exit !ok }'
}

# ibv_rc_pingpong: "N iters in S seconds = U usec/iter", one iteration = a round trip.
bn_parse_pingpong() {
	awk '/^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec\/iter$/ { print $(NF - 1); ok = 1; exit }
	     END { exit !ok }'
}

# cmtime (rdma-core librdmacm/examples/cmtime.c): per step "name: total_ms max_ms
# min_us us_per_conn", steps run one after another over all connections.
# Prints "setup_total_ms connect_total_ms errors": create id .. connect summed.
bn_parse_cmtime() {
	awk '/^step +total ms/ { h = 1; next }
	     /^event: |_ERROR, error:/ { err++ }
	     h && /^(create id|bind addr|resolve addr|resolve route|create qp|connect) *:/ {
		split($0, a, ":"); split(a[2], v, " "); sum += v[1]; n++
		if (a[1] ~ /^connect */) conn = v[1]
	     }
	     END { if (n < 5 || conn == "") exit 1; printf "%.2f %.2f %d\n", sum, conn, err }'
}

# sockperf ping-pong: "percentile 50.000 = X" and 99.000, one way in usec (RTT/2);
# colour escapes stripped. Prints "p50 p99".
bn_parse_sockperf() {
	sed 's/\x1b\[[0-9;]*m//g' | awk '
	     /---> percentile 50.000 =/ { p50 = $NF }
	     /---> percentile 99.000 =/ { p99 = $NF }
	     END { if (p50 == "" || p99 == "") exit 1; print p50, p99 }'
}

# fabtests' fi_pingpong: "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec",
# the row of the one size asked (its bytes as "64" or "4k"); usec/xfer is one way
# (its time over 2 x iterations), a mean. Prints usec/xfer.
bn_parse_fi_pingpong() {
	awk '$1 == "bytes" && $7 == "usec/xfer" { h = 1; next }
	     h && $1 ~ /^[0-9]+[kmg]?$/ && NF >= 8 { print $7; ok = 1; exit }
	     END { exit !ok }'
}

# x2 and ratios: awk, not bash arithmetic (decimals).
bn_calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
