# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# runner.sh: run test programs and suites as one TAP 13 stream, kselftest
# runner.sh style but nested like KTAP: each program is one top-level result and
# its own TAP is embedded under it, indented two spaces and opened by
# "KTAP version 1" (tests/consumers.t reads it with prove and kunit.py). Sourced
# (after tap/tap.sh) by tests/check, tests/run-unit and suites/vm/run-in-vm.
#
#   rn_init                       reads RN_* settings below
#   rn_add exec NAME CMD...       a kselftest-style program (exit 0/1/4)
#   rn_add bats NAME FILE         a bats file, run with --formatter tap
#   rn_add skip NAME REASON       a result known in advance
#   rn_add error NAME REASON
#   rn_run_all                    prints the stream; returns 0/1/4
#
# Per program: a timeout from the settings file (timeout=N, NAME.timeout=N;
# TIMEOUT on expiry, the whole process group is killed), exit 4 = SKIP with the
# program's own reason, a blktests-style kernel log check (a WARN/BUG/Oops that
# appears while it runs fails it), logs in RN_LOG_DIR and a JUnit file in
# RN_JUNIT_DIR. Progress and the programs' stderr go to stderr.
#
# Settings (environment, read by rn_init):
#   RN_ROOT        repo root, the programs' working directory
#   RN_SETTINGS    settings file (default RN_ROOT/suites/settings)
#   RN_LOG_DIR     per-program .tap/.err/.dmesg (default RN_ROOT/build/check)
#   RN_JUNIT_DIR   JUnit XML per program; empty: none
#   RN_DMESG       command printing the kernel log (default: dmesg)
#   RN_KMSG        where to write the start marker (default: /dev/kmsg)
#   RN_PROG        name for log lines

RN_DEFAULT_TIMEOUT=300
RN_KILL_AFTER=10
# blktests' _check_dmesg list, plus the sanitizers' and lockdep's reports.
RN_DMESG_BAD='kernel BUG at|WARNING:|BUG:|Oops|Call Trace|general protection fault|possible recursive locking detected|possible circular locking dependency|Internal error|INFO: suspicious RCU usage|UBSAN:|KASAN:|refcount_t:'

rn_log() {
	echo "${RN_PROG:-runner}: $*" >&2
}

rn_init() {
	RN_ROOT=${RN_ROOT:?RN_ROOT not set}
	RN_SETTINGS=${RN_SETTINGS:-$RN_ROOT/suites/settings}
	RN_LOG_DIR=${RN_LOG_DIR:-$RN_ROOT/build/check}
	RN_JUNIT_DIR=${RN_JUNIT_DIR-}
	RN_DMESG=${RN_DMESG:-dmesg}
	RN_KMSG=${RN_KMSG:-/dev/kmsg}
	RN_KINDS=() RN_NAMES=() RN_ARGS=()
	RN_CHILD=
	mkdir -p "$RN_LOG_DIR" || return 1
	if [ -n "$RN_JUNIT_DIR" ]; then
		mkdir -p "$RN_JUNIT_DIR" || return 1
	fi
	trap rn_interrupt INT TERM
}

# A Ctrl-C must not leave a suite's namespaces and agents running.
rn_interrupt() {
	if [ -n "$RN_CHILD" ]; then
		kill -TERM "$RN_CHILD" 2>/dev/null || true
		wait "$RN_CHILD" 2>/dev/null || true
	fi
	rn_log "interrupted"
	exit 130
}

# rn_add KIND NAME ARGS...: the command is kept %q-quoted, evaluated at run time.
rn_add() {
	local kind=$1 name=$2 q
	shift 2
	q=$(printf '%q ' "$@")
	RN_KINDS+=("$kind")
	RN_NAMES+=("$name")
	RN_ARGS+=("$q")
}

# Display name: relative to the repo, else the last two path components.
rn_name() {
	case $1 in
	"$RN_ROOT"/*) echo "${1#"$RN_ROOT"/}" ;;
	*) echo "$(basename "$(dirname "$1")")/$(basename "$1")" ;;
	esac
}

# rn_add_dir DIR GLOB...: every matching program in DIR, sorted, as exec or bats.
rn_add_dir() {
	local dir=$1 f g
	shift
	if [ ! -d "$dir" ]; then
		rn_add error "$(rn_name "$dir")" "no such directory"
		return 0
	fi
	for g in "$@"; do
		for f in "$dir"/$g; do
			[ -f "$f" ] || continue
			case $f in
			*.bats) rn_add bats "$(rn_name "$f")" "$f" ;;
			*)
				if [ -x "$f" ]; then
					rn_add exec "$(rn_name "$f")" "$f"
				else
					rn_add error "$(rn_name "$f")" "not executable"
				fi
				;;
			esac
		done
	done
}

# kselftest "settings": NAME.timeout (file name, then without extension), then
# timeout, then the default.
rn_timeout() {
	local base stem v=""

	base=$(basename "$1")
	stem=${base%.*}
	if [ -r "$RN_SETTINGS" ]; then
		v=$(awk -F= -v a="$base.timeout" -v b="$stem.timeout" '
			/^[ \t]*#/ { next }
			{ k = $1; gsub(/[ \t]/, "", k); v = $2; gsub(/[ \t]/, "", v) }
			k == a { ka = v } k == b { kb = v } k == "timeout" { kd = v }
			END { print (ka != "" ? ka : (kb != "" ? kb : kd)) }' "$RN_SETTINGS")
	fi
	case $v in
	'' | *[!0-9]*) echo "$RN_DEFAULT_TIMEOUT" ;;
	*) echo "$v" ;;
	esac
}

rn_slug() {
	local s=${1//\//_}
	echo "${s//[^A-Za-z0-9._-]/_}"
}

# Marks the kernel log so rn_dmesg_end sees only what came after. Sets
# RN_DMESG_MODE: marker (written to RN_KMSG), count (lines so far), or off.
rn_dmesg_begin() {
	local n

	RN_DMESG_MARK="rdmacap-check: begin $1 ($$.$SECONDS.$RANDOM)"
	if ! n=$($RN_DMESG 2>/dev/null | wc -l) || [ "$n" -eq 0 ]; then
		RN_DMESG_MODE=off
	elif { echo "$RN_DMESG_MARK" >"$RN_KMSG"; } 2>/dev/null; then
		RN_DMESG_MODE=marker
	else
		RN_DMESG_MODE=count RN_DMESG_LINES=$n
	fi
}

# rn_dmesg_end FILE: writes the bad kernel lines logged since rn_dmesg_begin to
# FILE; returns 0 if there were any.
rn_dmesg_end() {
	local new

	case $RN_DMESG_MODE in
	off) return 1 ;;
	marker)
		new=$($RN_DMESG 2>/dev/null | awk -v m="$RN_DMESG_MARK" '
			index($0, m) { buf = ""; seen = 1; next }
			seen { buf = buf $0 "\n" }
			END { printf "%s", buf }') || return 1
		;;
	count)
		new=$($RN_DMESG 2>/dev/null | tail -n +"$((RN_DMESG_LINES + 1))") || return 1
		;;
	esac
	printf '%s\n' "$new" | grep -E "$RN_DMESG_BAD" >"$1" || return 1
}

# rn_scan FILE: reads the program's top-level TAP. Sets RN_N RN_PLAN (-1: none)
# RN_NFAIL RN_NSKIP RN_BAIL RN_SKIPWHY.
rn_scan() {
	local out

	out=$(awk '
		function directive(line,   i, d) {
			i = index(line, "#")
			if (!i)
				return ""
			d = substr(line, i + 1)
			sub(/^[ \t]*/, "", d)
			return d
		}
		/^(TAP|KTAP) version/ { next }
		/^1\.\.[0-9]+/ {
			plan = substr($0, 4) + 0
			if (plan == 0 && why == "") {
				d = directive($0)
				if (toupper(substr(d, 1, 4)) == "SKIP") {
					why = substr(d, 5)
					sub(/^[ \t]*/, "", why)
				}
			}
			hasplan = 1
			next
		}
		/^Bail out!/ { bail = 1; next }
		/^(not )?ok([ \t]|$)/ {
			n++
			d = directive($0)
			w = toupper(substr(d, 1, 4))
			if (w == "SKIP") {
				skip++
				if (why == "") {
					why = substr(d, 5)
					sub(/^[ \t]*/, "", why)
				}
			} else if (w == "TODO") {
				;
			} else if ($1 == "not" || toupper(substr(d, 1, 5)) == "XPASS") {
				fail++
			}
		}
		END {
			gsub(/[\t\n]/, " ", why)
			printf "%d %d %d %d %d\t%s\n", n, hasplan ? plan : -1, fail, skip, bail, why
		}' "$1")
	read -r RN_N RN_PLAN RN_NFAIL RN_NSKIP RN_BAIL <<<"${out%%$'\t'*}"
	RN_SKIPWHY=${out#*$'\t'}
}

# rn_verdict RC ELAPSED TIMEOUT FILE: sets RN_RES (pass fail skip timeout) and
# RN_WHY from the exit status and, when it says pass, from the stream itself: a
# program that exits 0 after "not ok" or a short plan has still failed.
rn_verdict() {
	local rc=$1 el=$2 tmo=$3 sig

	rn_scan "$4"
	RN_WHY=
	if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$el" -ge "$tmo" ]; }; then
		RN_RES=timeout RN_WHY="$tmo seconds"
	elif [ "$rc" -eq 4 ]; then
		RN_RES=skip RN_WHY=${RN_SKIPWHY:-exit 4}
	elif [ "$rc" -gt 128 ] && sig=$(kill -l "$((rc - 128))" 2>/dev/null); then
		RN_RES=fail RN_WHY="exit=$rc (SIG$sig)"
	elif [ "$rc" -ne 0 ]; then
		RN_RES=fail RN_WHY="exit=$rc"
	elif [ "$RN_BAIL" -ne 0 ]; then
		RN_RES=fail RN_WHY="bailed out"
	elif [ "$RN_NFAIL" -ne 0 ]; then
		RN_RES=fail RN_WHY="exit 0 after $RN_NFAIL failed test(s)"
	elif [ "$RN_PLAN" -lt 0 ]; then
		RN_RES=fail RN_WHY="no TAP plan"
	elif [ "$RN_PLAN" -ne "$RN_N" ]; then
		RN_RES=fail RN_WHY="planned $RN_PLAN tests, ran $RN_N"
	elif [ "$RN_N" -eq "$RN_NSKIP" ]; then
		RN_RES=skip RN_WHY=$RN_SKIPWHY
	else
		RN_RES=pass
	fi
}

# rn_junit NAME TAPFILE RES WHY SECONDS XMLFILE: a JUnit file with one testcase
# per top-level result of the program, plus one for the runner's own verdict
# when that failed for a reason the stream doesn't show (timeout, exit, dmesg).
rn_junit() {
	perl -e '
use strict;
use warnings;
my ($name, $tap, $res, $why, $secs, $xml) = @ARGV;

sub esc {
	my $s = shift // "";
	$s =~ s/[^\x09\x0a\x0d\x20-\x7e]/?/g;
	$s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g;
	$s =~ s/"/&quot;/g; $s =~ s/\x27/&apos;/g;
	return $s;
}

open(my $in, "<", $tap) or die "rn_junit: open $tap: $!\n";
my @lines = <$in>;
close($in);
my (@cases, @pending);
my ($nfail, $nerr, $nskip) = (0, 0, 0);
for my $l (@lines) {
	chomp $l;
	if ($l =~ /^(not )?ok\b\s*(\d*)\s*([^#]*?)\s*(?:#\s*(.*))?$/) {
		my ($not, $num, $desc, $dir) = ($1, $2, $3, $4 // "");
		my $c = { name => $desc ne "" ? $desc : "test $num", out => join("\n", @pending) };
		@pending = ();
		if ($dir =~ /^(skip|todo)\b\s*(.*)/i) {
			$c->{skip} = $2; $nskip++;
		} elsif ($dir =~ /^(timeout|error)\b\s*(.*)/i && $not) {
			$c->{error} = "$1 $2"; $nerr++;
		} elsif ($not || $dir =~ /^xpass\b/i) {
			$c->{fail} = $dir ne "" ? $dir : "not ok"; $nfail++;
		}
		push @cases, $c;
	} elsif ($l =~ /^1\.\.0\b.*#\s*skip\b\s*(.*)/i) {
		push @cases, { name => $name, skip => $1, out => "" }; $nskip++;
	} else {
		push @pending, $l;
	}
}
if (($res eq "fail" || $res eq "timeout") && !$nfail && !$nerr) {
	push @cases, { name => $name, ($res eq "timeout" ? "error" : "fail") => "$res: $why",
		       out => join("\n", @pending) };
	$res eq "timeout" ? $nerr++ : $nfail++;
}
if ($res eq "skip" && !@cases) {
	push @cases, { name => $name, skip => $why, out => "" }; $nskip++;
}
open(my $o, ">", "$xml.tmp") or die "rn_junit: open $xml.tmp: $!\n";
printf $o "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
printf $o "<testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\">\n",
	esc($name), scalar(@cases), $nfail, $nerr, $nskip, esc($secs);
for my $c (@cases) {
	printf $o "  <testcase classname=\"%s\" name=\"%s\">\n", esc($name), esc($c->{name});
	printf $o "    <skipped message=\"%s\"/>\n", esc($c->{skip}) if defined $c->{skip};
	printf $o "    <failure message=\"%s\"/>\n", esc($c->{fail}) if defined $c->{fail};
	printf $o "    <error message=\"%s\"/>\n", esc($c->{error}) if defined $c->{error};
	printf $o "    <system-out>%s</system-out>\n", esc($c->{out}) if $c->{out} ne "";
	printf $o "  </testcase>\n";
}
printf $o "  <system-out>%s</system-out>\n", esc(join("\n", @lines));
printf $o "</testsuite>\n</testsuites>\n";
close($o) or die "rn_junit: write $xml.tmp: $!\n";
rename("$xml.tmp", $xml) or die "rn_junit: rename $xml: $!\n";
' "$@"
}

# rn_exec KIND ARGS LOG TIMEOUT: runs the program in the background (so that a
# signal to us can end it), fd 3 closed (bats hangs on a leaked fd 3), stdin
# empty. Sets RN_RC and RN_ELAPSED.
rn_exec() {
	local kind=$1 log=$3 tmo=$4 t0 jdir
	local -a cmd

	eval "cmd=($2)"
	if [ "$kind" = bats ]; then
		jdir=$log.junit
		if [ -n "$RN_JUNIT_DIR" ]; then
			rm -rf "$jdir" && mkdir -p "$jdir"
			cmd=(bats --formatter tap --report-formatter junit --output "$jdir" "${cmd[@]}")
		else
			cmd=(bats --formatter tap "${cmd[@]}")
		fi
	fi
	t0=$SECONDS
	RN_RC=0
	(cd "$RN_ROOT" && exec timeout -k "$RN_KILL_AFTER" "$tmo" "${cmd[@]}") \
		</dev/null >"$log.tap" 2>"$log.err" 3>&- &
	RN_CHILD=$!
	wait "$RN_CHILD" || RN_RC=$?
	RN_CHILD=
	RN_ELAPSED=$((SECONDS - t0))
}

# bats writes its report from a process substitution that can outlive bats
# itself: wait up to 5 s for the closing tag before trusting the file.
rn_bats_report() {
	local n

	for ((n = 0; n < 50; n++)); do
		grep -qs '</testsuites>' "$1" && return 0
		sleep 0.1
	done
	return 1
}

rn_run_one() {
	local kind=$1 name=$2 args=$3 i=$4 total=$5 tmo log xml

	tmo=$(rn_timeout "$name")
	log=$RN_LOG_DIR/$(rn_slug "$name")
	xml=
	[ -n "$RN_JUNIT_DIR" ] && xml=$RN_JUNIT_DIR/$(rn_slug "$name").xml
	rm -f "$log.tap" "$log.err" "$log.dmesg"
	tap_diag "$name"
	case $kind in
	skip | error)
		eval "set -- $args"
		rn_log "[$i/$total] $name: $kind: $1"
		tap_result "$kind" "$name" "$1"
		: >"$log.tap"
		[ -z "$xml" ] || rn_junit "$name" "$log.tap" "${kind/error/fail}" "$1" 0 "$xml"
		return 0
		;;
	esac

	rn_log "[$i/$total] $name (timeout ${tmo}s)"
	rn_dmesg_begin "$name"
	rn_exec "$kind" "$args" "$log" "$tmo"
	rn_verdict "$RN_RC" "$RN_ELAPSED" "$tmo" "$log.tap"
	if [ "$RN_DMESG_MODE" = off ]; then
		tap_diag "kernel log check skipped: $RN_DMESG not readable"
	elif rn_dmesg_end "$log.dmesg"; then
		[ "$RN_RES" = timeout ] || RN_RES=fail
		RN_WHY="${RN_WHY:+$RN_WHY; }kernel warning in dmesg ($log.dmesg)"
	else
		rm -f "$log.dmesg"
	fi

	tap_embed "$log.tap" "$name"
	[ -s "$log.dmesg" ] && tap_diag "$(head -n 20 "$log.dmesg")"
	tap_kv elapsed_s "$RN_ELAPSED"
	case $RN_RES in
	pass) tap_ok "$name" ;;
	fail) tap_fail "$name" "$RN_WHY" ;;
	*) tap_result "$RN_RES" "$name" "$RN_WHY" ;;
	esac
	rn_log "[$i/$total] $name: $RN_RES${RN_WHY:+ ($RN_WHY)} in ${RN_ELAPSED}s; log $log.tap"
	if [ "$RN_RES" = fail ] || [ "$RN_RES" = timeout ] || [ -n "${RN_VERBOSE-}" ]; then
		[ -s "$log.err" ] && sed "s|^|$name: |" "$log.err" >&2
	fi

	[ -n "$xml" ] || return 0
	# bats' own report is richer, unless the runner overruled bats' verdict.
	if [ "$kind" = bats ] && [ "$RN_RES" != timeout ] && [ ! -s "$log.dmesg" ] &&
		rn_bats_report "$log.junit/report.xml"; then
		mv "$log.junit/report.xml" "$xml"
	else
		rn_junit "$name" "$log.tap" "$RN_RES" "$RN_WHY" "$RN_ELAPSED" "$xml" ||
			rn_log "$name: JUnit file $xml not written"
	fi
	rm -rf "$log.junit"
}

rn_run_all() {
	local i total=${#RN_NAMES[@]}

	tap_init
	tap_plan "$total"
	for ((i = 0; i < total; i++)); do
		rn_run_one "${RN_KINDS[$i]}" "${RN_NAMES[$i]}" "${RN_ARGS[$i]}" "$((i + 1))" "$total"
	done
	tap_totals
	return "$(tap_exit_code)"
}
