#!/bin/bash
# SPDX-License-Identifier: MIT
#
# rdmacap-agent --transport tcp end to end on 127.0.0.1: a server agent and
# client agents driven over fifos exactly as the orchestrator does (common/proto.h):
# hello, go, conn ok/fail, connected, run, result, stop/EOF, bye. Also hostile
# peers against the server, EOF in every phase, failure records and bad flags.
# Prints TAP; AGENT overrides the binary (default build/rdmacap-agent); KEEP=1
# keeps the agents' logs and fifos (tests/lib.sh).
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
AGENT=${AGENT:-$ROOT/build/rdmacap-agent}
# listening ports below the ephemeral range, random so parallel runs do not meet
P=$((10000 + RANDOM % 20000))
WAIT=${AGENT_TCP_WAIT:-15}
N=0
FAILED=0
declare -A PID FD

tl_cleanup() {
	local a
	for a in "${!PID[@]}"; do
		kill "${PID[$a]}" 2>/dev/null
	done
}

ok() { N=$((N + 1)); echo "ok $N $1"; }
not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N $1"
}
quiet() { "$@" >/dev/null; }
diag() { sed 's/^/# /' "$@"; }
check() { # check DESC CMD...: ok when CMD succeeds
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# ag_start NAME ARGS...: agent with stdin on a fifo we hold, stdout/stderr in files
ag_start() {
	local name=$1 fd
	shift
	mkfifo "$T/$name.in"
	# the other agents' stdin writers must not leak in, or their EOF never comes
	(ag_close_fds && exec "$AGENT" "$@" <"$T/$name.in" >"$T/$name.out" 2>"$T/$name.err") &
	PID[$name]=$!
	exec {fd}>"$T/$name.in"
	FD[$name]=$fd
}
ag_close_fds() {
	local f
	for f in "${FD[@]}" ${idle:+"$idle"}; do
		exec {f}>&-
	done
}
ag_send() { echo "$2" >&"${FD[$1]}"; }
ag_eof() {
	local fd=${FD[$1]}
	exec {fd}>&-
}
# ag_wait NAME ERE: until a record matches (bounded); the line on stdout
ag_wait() {
	local i
	for ((i = 0; i < WAIT * 20; i++)); do
		if grep -m1 -E "$2" "$T/$1.out"; then
			return 0
		fi
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	grep -m1 -E "$2" "$T/$1.out" && return 0
	echo "# $1: no record matching '$2'; stdout/stderr:"
	diag "$T/$1.out" "$T/$1.err" | tail -20
	return 1
}
# ag_reap NAME: exit status of the agent, killing it (by pid) past the deadline
ag_reap() {
	local i rc
	for ((i = 0; i < WAIT * 20; i++)); do
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "${PID[$1]}" 2>/dev/null; then
		echo "# $1 still running after ${WAIT}s, killed"
		kill -9 "${PID[$1]}"
	fi
	wait "${PID[$1]}"
	rc=$?
	unset "PID[$1]"
	return $rc
}
field() { # field LINE KEY
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}
# run_client NAME ARGS...: go, connected, run, result; leaves it holding
run_client() {
	local name=$1
	shift
	ag_start "$name" --role client --transport tcp --port "$P" "$@"
	ag_wait "$name" '^hello role=client' >/dev/null &&
		ag_send "$name" go &&
		ag_wait "$name" '^connected ' >"$T/$name.connected" &&
		ag_send "$name" run &&
		ag_wait "$name" '^result ' >"$T/$name.result"
}

if [ ! -x "$AGENT" ]; then
	echo "1..0 # SKIP $AGENT not built"
	exit 0
fi
echo "TAP version 13"
echo "1..29"

# --- bad command lines ---------------------------------------------------------
rc=0
"$AGENT" --role client --transport tcp --size 0 2>"$T/e1" || rc=$?
check "--size 0 exits 2 naming --size" test "$rc" = 2 -a -n "$(grep -e '--size' "$T/e1" | head -1)"
rc=0
"$AGENT" --role server --transport tcp --frob 2>"$T/e2" || rc=$?
check "unknown --frob exits 2 with usage naming it" \
	test "$rc" = 2 -a -n "$(grep "unrecognized option '--frob'" "$T/e2")" \
	-a -n "$(grep '^Usage:' "$T/e2")"
rc=0
"$AGENT" --role client --transport udp 2>"$T/e3" || rc=$?
check "--transport udp exits 2 naming --transport" \
	test "$rc" = 2 -a -n "$(grep -e "'udp' for --transport" "$T/e3")"
rc=0
"$AGENT" --role server --transport tcp --clients 3 2>"$T/e4" || rc=$?
check "a client option given to the server exits 2" test "$rc" = 2

# --- one server, 100 clients -----------------------------------------------------
ag_start srv --role server --transport tcp --port "$P" --ports 2 --size 100 --timeout 2
check "server says hello with its ports" \
	quiet ag_wait srv "^hello role=server pid=[0-9]+ ports=2 port=$P\$"

run_client c1 --ports 2 --clients 100 --msgs 10 --size 100 >/dev/null
line=$(cat "$T/c1.connected")
check "100 clients connect (${line})" test "$line" != "${line#connected ok=100 fail=0 us=}"
ids=$(sed -n 's/^conn ok id=\([0-9]*\) us=[0-9]*$/\1/p' "$T/c1.out" | sort -n | uniq | tr '\n' ' ')
check "one 'conn ok' per id 0..99" test "$ids" = "$(seq 0 99 | tr '\n' ' ')"
line=$(cat "$T/c1.result")
check "1000 round trips, all verified (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=100 msgs=1000 verified=1000 bad=0 errors=0 us=}"
hist=$(field "$line" hist)
total=0
for kv in ${hist//,/ }; do total=$((total + ${kv#*:})); done
check "latency histogram counts 1000 round trips" test "$total" = 1000

# --- workers: a pool of 4 over 50 connections ------------------------------------
run_client c2 --ports 2 --first-id 1000 --clients 50 --workers 4 --msgs 20 \
	--think-ms 1 --size 100 >/dev/null
line=$(cat "$T/c2.result")
check "--workers 4 over 50 connections: 1000 verified (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=50 msgs=1000 verified=1000 bad=0 errors=0 us=}"

# --- hostile peers ---------------------------------------------------------------
# garbage, then close
(exec 3<>"/dev/tcp/127.0.0.1/$P" && printf 'GET / HTTP/1.0\r\n\0\377garbage' >&3 && exec 3>&-)
# connect and never send (half-open from the server's view), kept during the rest
exec {idle}<>"/dev/tcp/127.0.0.1/$P"
# data, then a reset (SO_LINGER 0)
perl -MIO::Socket::INET -MSocket -e '
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:'"$P"'") or die "connect: $!";
	print $s "abc";
	setsockopt($s, SOL_SOCKET, SO_LINGER, pack("ii", 1, 0)) or die "linger: $!";
	close($s);'
# a peer that sends and never reads: its echo backs up (slowloris on the write side)
perl -MIO::Socket::INET -MIO::Select -e '
	my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:'"$P"'", Blocking => 0)
		or die "connect: $!";
	my $sel = IO::Select->new($s); my $buf = "z" x 65536; my $sent = 0;
	my $end = time + 5;
	while ($sent < (256 << 20) && time < $end) {
		next unless $sel->can_write(0.2);
		my $n = syswrite($s, $buf); last unless defined $n; $sent += $n;
	}
	sleep 4;' &
PID[hog]=$!
check "a reset peer is dropped with reason=ECONNRESET" \
	quiet ag_wait srv '^drop peer=127\.0\.0\.1:[0-9]+ reason=ECONNRESET$'
check "a peer that stops reading is dropped after --timeout: reason=stall" \
	quiet ag_wait srv '^drop peer=127\.0\.0\.1:[0-9]+ reason=stall$'
ag_reap hog

run_client c3 --ports 2 --first-id 2000 --clients 20 --msgs 5 --size 100 >/dev/null
line=$(cat "$T/c3.result")
check "the server still serves after hostile peers (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=20 msgs=100 verified=100 bad=0 errors=0 us=}"
exec {idle}>&-

# --- stop and EOF ----------------------------------------------------------------
# a silent peer: the kernel completes its handshakes, nobody ever echoes
SILENT=$((P + 2))
(ag_close_fds && exec perl -MIO::Socket::INET -e '
	my $l = IO::Socket::INET->new(Listen => 16, ReuseAddr => 1,
		LocalAddr => "127.0.0.1:'"$SILENT"'") or die "listen: $!";
	sleep 120;') &
PID[silent]=$!
ag_send c1 stop
ag_wait c1 '^bye$' >/dev/null
ag_reap c1
check "client: stop gives bye and exit 0" test $? = 0
ag_eof c2
ag_reap c2
rc=$?
check "client: EOF on stdin while holding connections ends it (exit $rc, bye)" \
	test "$rc" = 0 -a "$(tail -1 "$T/c2.out")" = bye
ag_start c4 --role client --transport tcp --port "$P" --clients 5
ag_wait c4 '^hello ' >/dev/null
ag_eof c4
ag_reap c4
rc=$?
check "client: EOF before go ends it (exit $rc)" test "$rc" = 0 -a "$(tail -1 "$T/c4.out")" = bye
ag_send c3 stop
ag_reap c3
# traffic that would last 100 s: EOF must end it at once, with what it measured
ag_start c7 --role client --transport tcp --port "$P" --ports 2 --clients 10 \
	--msgs 100 --think-ms 1000
ag_wait c7 '^hello ' >/dev/null
ag_send c7 go
ag_send c7 run
ag_wait c7 '^connected ' >/dev/null
sleep 0.5
t0=$SECONDS
ag_eof c7
ag_reap c7
rc=$?
check "client: EOF during traffic ends it within 2 s (exit $rc, $((SECONDS - t0)) s)" \
	test "$rc" = 0 -a $((SECONDS - t0)) -le 2 -a "$(tail -1 "$T/c7.out")" = bye
line=$(tail -2 "$T/c7.out" | head -1)
m=$(field "$line" msgs)
check "client: cut traffic reports before bye, unfinished lost (${line%% hist=*})" \
	test "${line%% *}" = result -a "${m:-0}" -gt 0 -a "$(field "$line" verified)" = "$m" \
	-a "$(field "$line" errors)" = 10
# the same with "stop" while a round trip is still in flight (a silent peer)
ag_start c8 --role client --transport tcp --port "$SILENT" --clients 2 --msgs 5 --timeout 30
ag_wait c8 '^hello ' >/dev/null
ag_send c8 go
ag_send c8 run
ag_wait c8 '^connected ok=2 ' >/dev/null
ag_send c8 stop
ag_reap c8
line=$(tail -2 "$T/c8.out" | head -1)
check "client: stop during traffic reports before bye (${line%% hist=*})" \
	test "$(tail -1 "$T/c8.out")" = bye -a \
	"$line" != "${line#result role=client ok=2 msgs=0 verified=0 bad=0 errors=2 us=}"
# think time beyond --timeout is the plan's, not a stall (common/deadline.h)
run_client c9 --ports 2 --first-id 3000 --clients 5 --msgs 15 --think-ms 100 \
	--timeout 1 >/dev/null
line=$(cat "$T/c9.result")
check "--think-ms 100 x 15 msgs with --timeout 1: all 75 verified (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=5 msgs=75 verified=75 bad=0 errors=0 us=}"
ag_eof c9
ag_reap c9
# the traffic deadline names every connection it cuts, in flight or waiting its turn
run_client c10 --port "$SILENT" --clients 2 --workers 1 --msgs 1 --timeout 1 >/dev/null
line=$(cat "$T/c10.result")
check "deadline: round trip in flight named (call=recv err=timeout)" \
	grep -q '^msg fail id=0 call=recv errno=0 err=timeout$' "$T/c10.out"
check "deadline: connection waiting for a worker named (call=deadline err=timeout)" \
	grep -q '^msg fail id=1 call=deadline errno=0 err=timeout$' "$T/c10.out"
check "deadline: result counts both lost (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=2 msgs=0 verified=0 bad=0 errors=2 us=}"
ag_eof c10
ag_reap c10
kill "${PID[silent]}"
wait "${PID[silent]}" 2>/dev/null
unset "PID[silent]"

ag_eof srv
ag_reap srv
rc=$?
line=$(grep '^result ' "$T/srv.out")
check "server: EOF gives result and bye, exit $rc (${line})" \
	test "$rc" = 0 -a "$(tail -1 "$T/srv.out")" = bye -a -n "$line"
acc=$(field "$line" accepted)
check "server counted every connection: accepted=$acc >= 184" test "${acc:-0}" -ge 184

# --- failures are records ----------------------------------------------------------
ag_start srv2 --role server --transport tcp --port "$P" --server-model thread
ag_wait srv2 '^hello role=server' >/dev/null
run_client c5 --ports 2 --clients 10 --msgs 3 >/dev/null
bad=$(grep -c '^conn fail id=[13579] call=connect errno=111 err=ECONNREFUSED$' "$T/c5.out")
check "--ports 2 against one listener: odd ids refused, named ($bad)" \
	test "$bad" = 5 -a "$(cut -d' ' -f1-3 <"$T/c5.connected")" = "connected ok=5 fail=5"
line=$(cat "$T/c5.result")
check "thread model server echoes: 15 verified (${line%% hist=*})" \
	test "$line" != "${line#result role=client ok=5 msgs=15 verified=15 bad=0 errors=0}"
ag_eof c5
ag_reap c5

# EMFILE: 40 fds, of which a few are taken already
mkfifo "$T/c6.in"
(ag_close_fds && ulimit -n 40 && exec "$AGENT" --role client --transport tcp --port "$P" --clients 60 \
	<"$T/c6.in" >"$T/c6.out" 2>"$T/c6.err") &
PID[c6]=$!
exec {fd}>"$T/c6.in"
FD[c6]=$fd
ag_wait c6 '^hello ' >/dev/null
ag_send c6 go
ag_wait c6 '^connected ' >"$T/c6.connected"
emf=$(grep -c '^conn fail id=[0-9]* call=socket errno=24 err=EMFILE$' "$T/c6.out")
c6ok=$(sed -n 's/^connected ok=\([0-9]*\) fail=\([0-9]*\) .*/\1+\2/p' "$T/c6.connected")
check "EMFILE on socket() is a record, not a crash ($emf EMFILE, $c6ok)" \
	test "$emf" -gt 0 -a "$((c6ok))" = 60
ag_eof c6
ag_reap c6

ag_send srv2 stop
ag_wait srv2 '^bye$' >/dev/null
ag_reap srv2
check "thread model server: stop gives bye and exit 0" test $? = 0

[ "$N" = 29 ] || not_ok "plan: ran $N tests, planned 29"
exit $((FAILED > 0))
