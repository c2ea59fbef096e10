#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The merged stream of tests/check read by two independent consumers, which
# must agree: prove's TAP::Parser (TAP 13; nested lines are not its business)
# and the kernel's own KTAP parser, tools/testing/kunit/kunit_parser.py (what
# `kunit.py parse` runs), which follows every nested level by its version line.
# Both see the same top-level tests with the same pass/fail/skip, neither finds
# a parse error, and every nested level kunit finds has as many tests as its plan.
#
# Why not node's tap-parser: it reads TAP 14, whose subtests are indented 4
# spaces per level; KTAP's are 2. It takes a KTAP level-1 block as extra text
# and its level-2 blocks as one TAP 14 child, so the two cannot agree beyond
# depth 1 without breaking KTAP.
#
# Streams: a small fixture run of tests/check (nesting 3 deep through a fake
# vm/run, a skip-all, a failure, a program cut off by its timeout halfway
# through its plan, bats' plain TAP) and, when present, the last
# real one, build/check/check.tap. kunit_parser.py comes from the Debian
# package linux-source (tests/deps), unpacked once into build/kunit; without
# it the kunit checks SKIP with the reason.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KUNIT=${CONSUMERS_KUNIT_DIR:-$ROOT/build/kunit}
REAL=${CONSUMERS_REAL:-$ROOT/build/check/check.tap}
FX=$T/fx

mk() {
	mkdir -p "$(dirname "$1")"
	cat >"$1"
	chmod "$2" "$1"
}

fixtures() {
	mk "$FX/suites/nested.sh" 755 <<-EOF
	#!/bin/bash
	set -eu
	. "$ROOT/tap/tap.sh"
	tap_init; tap_plan 3
	tap_sub_begin; tap_plan 2; tap_kv qp 10; tap_ok connect
	tap_sub_begin; tap_plan 1; tap_ok counters; tap_sub_end leaks
	tap_sub_end "clients=10"
	tap_sub_begin; tap_skip_all "no rxe"; tap_sub_end "clients=50"
	tap_skip storm "not root"
	tap_finished
	EOF
	mk "$FX/suites/fail.sh" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..2\nok 1 a\nnot ok 2 b\n'
	exit 1
	EOF
	mk "$FX/suites/skip.sh" 755 <<-'EOF'
	#!/bin/sh
	echo "1..0 # SKIP not root"
	exit 4
	EOF
	# cut off by its timeout halfway through its plan (between its results: cut
	# inside a nested level of its own, kunit_parser takes the runner's next
	# line for that level's, a known limit of reading a truncated stream)
	mk "$FX/suites/slow.sh" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..2\nok 1 a\n'
	exec sleep 30
	EOF
	mk "$FX/suites/plain.bats" 644 <<-'EOF'
	@test "passes" { true; }
	@test "skips" { skip "why"; }
	EOF
	mk "$FX/suites/vm/a.sh" 755 <"$FX/suites/nested.sh"
	mk "$FX/settings" 644 <<<"timeout=30
slow.timeout=2"
	: | mk "$FX/kernel/vmlinuz" 644
	# vm/run's interface: runs the command after -- here, with its --env.
	mk "$FX/vm/run" 755 <<-'EOF'
	#!/bin/bash
	while [ "$1" != -- ]; do
		[ "$1" = --env ] && export "$2"
		shift
	done
	shift
	exec "$@"
	EOF
}

fixture_run() {
	env CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites" \
		CHECK_SETTINGS="$FX/settings" CHECK_VM=auto CHECK_HOST_RXE=no \
		CHECK_VM_RUN="$FX/vm/run" CHECK_VM_KERNEL="$FX/kernel" \
		CHECK_LOG_DIR="$T/log" CHECK_JUNIT_DIR= CHECK_DMESG=false CHECK_VERBOSE= \
		"$ROOT/tests/check" >"$T/fixture.tap" 2>"$T/fixture.err" </dev/null || true
}

# The kernel source tarball linux-source installs; the newest if several.
kunit_tarball() {
	local f

	f=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] && echo "$f"
}

# Unpacks tools/testing/kunit/*.py into $KUNIT once; prints why not on failure.
kunit_get() {
	local tar tmp

	[ -f "$KUNIT/kunit_parser.py" ] && return 0
	if ! command -v python3 >/dev/null; then
		echo "python3 not found (tests/deps installs it)"
		return 1
	fi
	if ! tar=$(kunit_tarball); then
		echo "no /usr/src/linux-source-*.tar.xz for kunit_parser.py (tests/deps installs linux-source)"
		return 1
	fi
	mkdir -p "$(dirname "$KUNIT")"
	tmp=$(mktemp -d "$KUNIT.XXXXXX")
	if ! tar -xJf "$tar" -C "$tmp" --strip-components=4 --wildcards \
		'*/tools/testing/kunit/*.py' 2>"$T/tar.err" || [ ! -f "$tmp/kunit_parser.py" ]; then
		rm -rf "$tmp"
		echo "kunit_parser.py not unpacked from $tar: $(head -n 1 "$T/tar.err")"
		return 1
	fi
	rm -rf "$KUNIT"
	mv "$tmp" "$KUNIT"
}

# prove's reading: "N pass|fail|skip NAME" per top-level test, then "errors: N"
# with TAP::Parser's parse errors as diagnostics on stderr.
view_prove() {
	perl -MTAP::Parser -e '
		# The text itself: a "source" not named .tap would be run as perl.
		open(my $f, "<", $ARGV[0]) or die "consumers: $ARGV[0]: $!\n";
		my $p = TAP::Parser->new({ tap => do { local $/; <$f> } });
		while (my $r = $p->next) {
			next unless $r->is_test;
			my $s = !$r->is_actual_ok ? "fail" : $r->has_skip ? "skip" : "pass";
			(my $d = $r->description) =~ s/^-\s*//;
			$d =~ s/ # TIMEOUT\b.*//;	# a directive to the runner, not the name
			print $r->number, " $s $d\n";
		}
		print STDERR "prove: $_\n" for $p->parse_errors;
		print "errors: ", scalar($p->parse_errors), "\n";
	' "$1"
}

# kunit_parser's reading, same form, plus "levels: N" (nested levels found)
# and "errors: N" (its parse errors plus levels whose test count is not their
# plan), the reasons on stderr.
view_kunit() {
	PYTHONPATH=$KUNIT python3 - "$1" <<-'EOF'
	import io, re, sys
	import kunit_parser as kp, kunit_printer
	log = io.StringIO()
	kp.stdout = kunit_printer.Printer(log)
	# A level is a version line kunit took as one: the top one, then each nested.
	levels = 0
	header = kp.parse_ktap_header
	def counted(lines, test):
	    global levels
	    found = header(lines, test)
	    levels += found
	    return found
	kp.parse_ktap_header = counted
	with open(sys.argv[1], errors="replace") as f:
	    main = kp.parse_run_tests(f)
	word = {kp.TestStatus.SUCCESS: "pass", kp.TestStatus.FAILURE: "fail",
	        kp.TestStatus.SKIPPED: "skip"}
	# A program the runner cut off at its timeout ("not ok N NAME # TIMEOUT ...")
	# ends its levels short of their plans: the stream says so, it is no error.
	with open(sys.argv[1], errors="replace") as f:
	    cut = set(re.findall(r"(?m)^ *not ok \d+ (.+?) # TIMEOUT\b", f.read()))
	# kunit's own errors only: it also prints the stream's diagnostics, which may
	# quote an earlier run's errors
	errs = [l for l in log.getvalue().splitlines() if re.match(r"\[[0-9:]+\] \[ERROR\]", l)
	        and not any(l.endswith(f"Test: {c}: missing expected subtest!") for c in cut)]
	def walk(t, path):
	    for s in t.subtests:
	        n = len(s.subtests)
	        if n and s.expected_count is not None and n != s.expected_count and s.name not in cut:
	            errs.append(f"{path}{s.name}: plan {s.expected_count}, {n} tests")
	        walk(s, f"{path}{s.name}/")
	# kunit calls a test whose output ended early crashed; prove, failed
	word[kp.TestStatus.TEST_CRASHED] = "fail"
	for i, s in enumerate(main.subtests, 1):
	    print(i, word.get(s.status, s.status.name.lower()), s.name)
	walk(main, "")
	for e in errs:
	    print("kunit:", e, file=sys.stderr)
	print("levels:", levels - 1)
	print("errors:", len(errs))
	EOF
}

# agree NAME STREAM: the checks on one stream.
agree() {
	local name=$1 s=$2 why

	view_prove "$s" >"$T/prove.view" 2>"$T/prove.err" || echo "errors: perl failed" >>"$T/prove.view"
	tap_result "$(grep -qx 'errors: 0' "$T/prove.view" && echo pass || echo fail)" \
		"$name: TAP::Parser reads it without parse errors"
	[ -s "$T/prove.err" ] && tap_diag "$(cat "$T/prove.err")"
	if ! why=$(kunit_get); then
		tap_skip "$name: kunit_parser.py reads it without errors, every level as planned" "$why"
		tap_skip "$name: kunit_parser.py finds every nested level" "$why"
		tap_skip "$name: both read the same top-level tests and verdicts" "$why"
		return 0
	fi
	view_kunit "$s" >"$T/kunit.view" 2>"$T/kunit.err" || echo "errors: python failed" >>"$T/kunit.view"
	[ -s "$T/kunit.err" ] && tap_diag "$(head -n 20 "$T/kunit.err")"
	tap_result "$(grep -qx 'errors: 0' "$T/kunit.view" && echo pass || echo fail)" \
		"$name: kunit_parser.py reads it without errors, every level as planned"
	# One level per nested version line; a level kunit took for a test is lost.
	tap_expect_eq "$name: kunit_parser.py finds every nested level" \
		"levels: $(grep -cE '^ +KTAP version 1$' "$s" || true)" \
		"$(grep '^levels:' "$T/kunit.view")"
	tap_expect_eq "$name: both read the same top-level tests and verdicts" \
		"$(grep -v ':' "$T/prove.view")" "$(grep -vE '^(levels|errors):' "$T/kunit.view")"
}

# tap_expect_eq DESC WANT GOT
tap_expect_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_diag "$(diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") || true)"
		tap_fail "$1"
	fi
}

fixtures
fixture_run
tap_init
tap_plan 10
tap_expect_eq "fixture run: the stream the consumers are fed" "ok 1 suites/plain.bats
not ok 2 suites/fail.sh
ok 3 suites/nested.sh
ok 4 suites/skip.sh # SKIP not root
not ok 5 suites/slow.sh # TIMEOUT 2 seconds
ok 6 vm" "$(grep -E '^(not )?ok ' "$T/fixture.tap")"
agree fixture "$T/fixture.tap"
# A stream whose nesting kunit cannot follow must fail the checks above: a
# nested version line dropped hides a level.
awk '!done && $0 == "    KTAP version 1" { done = 1; next } { print }' "$T/fixture.tap" >"$T/broken.tap"
if kunit_get >/dev/null; then
	view_kunit "$T/broken.tap" >"$T/broken.view" 2>/dev/null || true
	if grep -qx 'errors: 0' "$T/broken.view"; then
		tap_fail "a nested level without its version line is caught"
	else
		tap_ok "a nested level without its version line is caught"
	fi
else
	tap_skip "a nested level without its version line is caught" "$(kunit_get)"
fi
if [ -s "$REAL" ]; then
	agree "last make check ($(basename "$(dirname "$REAL")")/$(basename "$REAL"))" "$REAL"
else
	for _ in 1 2 3 4; do
		tap_skip "last make check stream" "no $REAL yet (make check writes it)"
	done
fi
tap_finished
