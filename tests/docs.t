#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The reference cannot drift from the code and the published figures from their
# data: docs/figures.md is what `rdmacap report --figures` prints from the table
# of figures (harness/figures/fig.c), every docs/results/NAME/ re-renders from its
# run.json (or runs/*.json) to the committed report.md and report.svg (docs/results/render, as
# `make results`), each has its README.md, a line in docs/results/README.md and a
# run (bash -n passes, no absolute path outside the repository), every committed
# result JSON matches its FILE.json.sha256, and each run.json's env
# names the kernel, the virtualization, memory, the commit (of a clean tree, so
# the run can be repeated) and the load at start and end; README.md and docs/ tell of the project only (no notebook of how it
# was measured), every path of the tree they name exists (a folder's name
# followed by a path, or a relative link), and every figure they cite
# ([VALUE unit](results/NAME/ "FIELD"), docs/results/README.md) is in its
# folder's JSON at that field, and no measured figure stands there without its
# citation (a number with a unit only a measurement gives: us, KB, MB, conn/s,
# 1.08x, 19.8 s, 37,872 B) and every quote of a result's file, `TEXT`
# ([FILE](results/NAME/FILE)), is in that file; README.md's table of options
# is what `rdmacap run --help` prints (docs/options) and README.md is at most
# 150 lines. Prints TAP.
#
#   DOCS_PATHS_PENDING  paths a document may name before they are committed
#                       (a result folder being run again), space-separated
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tap_init
tap_plan 14
D=${DOCS_DIR:-$ROOT/docs}

if "$RDMACAP" report --figures >"$T/figures.md" 2>"$T/err" &&
	diff -u "$D/figures.md" "$T/figures.md" >"$T/diff"; then
	tap_ok "docs/figures.md is rdmacap report --figures"
else
	tap_fail "docs/figures.md is rdmacap report --figures" \
		"$(cat "$T/err") $(head -20 "$T/diff") (make results rewrites it)"
fi

desc="README.md's table of options is what rdmacap run --help prints"
if RDMACAP=$RDMACAP "$D/options" "$ROOT/README.md" >"$T/README.md" 2>"$T/err" &&
	diff -u "$ROOT/README.md" "$T/README.md" >"$T/diff"; then
	tap_ok "$desc"
else
	tap_fail "$desc" "$(cat "$T/err") $(head -20 "$T/diff") (make results rewrites it)"
fi

n=$(wc -l <"$ROOT/README.md")
if [ "$n" -le 150 ]; then tap_ok "README.md is at most 150 lines ($n)"; else
	tap_fail "README.md is at most 150 lines ($n)" "docs/ takes the rest"; fi

desc="docs/results/*/ re-render to the committed report.md and report.svg"
if RDMACAP=$RDMACAP "$D/results/render" "$T/r" 2>"$T/err"; then
	bad=
	for d in "$D"/results/*/; do
		n=$(basename "$d")
		fs=(report.md report.svg)
		[ -d "$d/samples" ] && fs=(bench.md bench.json)
		for f in "${fs[@]}"; do
			cmp -s "$d/$f" "$T/r/$n/$f" || bad+=" $n/$f"
		done
	done
	if [ -z "$bad" ]; then tap_ok "$desc"; else tap_fail "$desc" "differ:$bad (make results)"; fi
else
	tap_fail "$desc" "$(cat "$T/err")"
fi

# each result says how it was run and on what
desc="each docs/results/*/ has its run, README.md and an env with kernel, virtualization, memory, commit, load"
bad=
for d in "$D"/results/*/; do
	n=$(basename "$d")
	[ -x "$d/run" ] || bad+=" $n:run"
	[ -s "$d/README.md" ] || bad+=" $n:README.md"
	if [ -d "$d/samples" ]; then
		# a make bench result: bench/run's env.json
		miss=$(jq -r '[("rc_kernel", "cpus", "loadavg_start", "loadavg_end") as $k |
			select(.[$k] == null) | $k] + [select(.rdmacap // "" |
			test("^[0-9a-f]{7,40}$") | not) | "rdmacap (a commit, not a dirty tree)"] |
			join(",")' "$d/samples/env.json" 2>&1) || miss="not JSON"
		[ -z "$miss" ] || bad+=" $n/samples/env.json:$miss"
		continue
	fi
	js=("$d"run.json)
	[ -f "${js[0]}" ] || js=("$d"runs/*.json)
	[ -f "${js[0]}" ] || js=("$d"*.json)
	for j in "${js[@]}"; do
		miss=$(jq -r '[(.env | ("kernel", "virtualization", "mem_kb", "loadavg_start",
			"loadavg_end") as $k | select(.[$k] == null) | $k),
			(select(.rdmacap // "" | test("^[0-9a-f]{7,40}$") | not) |
			"rdmacap (a commit, not a dirty tree)")] | join(",")' "$j" 2>&1) ||
			miss="not JSON"
		[ -z "$miss" ] || bad+=" $n/$(basename "$j"):$miss"
	done
done
if [ -z "$bad" ]; then tap_ok "$desc"; else tap_fail "$desc" "missing:$bad"; fi

# a run is commands only, from the repository's top: it parses, and names no
# absolute path but /dev/null (scratch folders, worktrees, lock files are the
# machine's, not the repository's); every folder is listed in the index
desc="docs/results/*/run parse, name no path outside the repository, and each folder is listed"
bad=
for d in "$D"/results/*/; do
	n=$(basename "$d")
	[ -f "$d/run" ] || continue
	bash -n "$d/run" 2>"$T/err" || bad+=" $n/run:$(head -1 "$T/err")"
	abs=$(grep -v '^[[:space:]]*#' "$d/run" | grep -oE '(^|[[:space:]=(:])["'"'"']?/[A-Za-z][^[:space:]"'"'"';)]*' |
		sed -E 's/^[^/]*//' | grep -vx '/dev/null' | sort -u | tr '\n' ' ')
	[ -z "$abs" ] || bad+=" $n/run names $abs"
	grep -q "^| \[$n\](" "$D/results/README.md" || bad+=" $n:not in docs/results/README.md"
done
if [ -z "$bad" ]; then tap_ok "$desc"; else tap_fail "$desc" "$bad"; fi

# a result is what its run wrote: each committed JSON (the renderings bench.json
# aside) has FILE.json.sha256 beside it, as rdmacap writes it, and matches it
desc="every committed docs/results/ JSON matches its FILE.json.sha256"
bad=
while IFS= read -r j; do
	case $j in */bench.json) continue ;; esac
	if [ ! -f "$j.sha256" ]; then
		bad+=" ${j#"$D"/results/}:no .sha256"
	elif ! (cd "$(dirname "$j")" && sha256sum -c --status "$(basename "$j").sha256"); then
		bad+=" ${j#"$D"/results/}:changed"
	fi
done < <(find "$D/results" -name '*.json' | sort)
if [ -z "$bad" ]; then tap_ok "$desc"; else tap_fail "$desc" "$bad"; fi

desc="a .sha256 under docs/results/ names the JSON beside it"
bad=
while IFS= read -r h; do
	[ "$(cut -d' ' -f3- "$h")" = "$(basename "${h%.sha256}")" ] && [ -f "${h%.sha256}" ] ||
		bad+=" ${h#"$D"/results/}"
done < <(find "$D/results" -name '*.json.sha256' | sort)
if [ -z "$bad" ]; then tap_ok "$desc"; else tap_fail "$desc" "$bad"; fi

desc="README.md and docs/ tell of the project, not of how it was measured"
hits=$(grep -rniE 'this session|(that|another|a later|the next|the last|previous|earlier) session|\bhelpers?\b|\bbranch(es)?\b|\bworktrees?\b|\blab notes?\b|engineers|host load [0-9]+-[0-9]+|\b(was|were) [0-9]|when written|\bthis commit\b|(an earlier|the previous|the old) (search|version|build|commit)|^#+ *Changed:|as it (did|was|ran) (at|in|on|before)|\b(since|until|as of) (commit )?[0-9a-f]{7,40}\b|vCPUs shared with other|Addressed( by|:)|^#+ *Soak run|^#+ *Measured$|Measured in the (rxe )?VM|(rdmacap|commit|build|programs) (at|of) [0-9a-f]{7}' \
	--include='*.md' "$ROOT/README.md" "$D" 2>/dev/null | grep -v "^$D/results/")
if [ -z "$hits" ]; then tap_ok "$desc"; else tap_fail "$desc" "$(head -5 <<<"$hits")"; fi

# doc_paths MD: "FILE:LINE: PATH" for each path MD names that does not exist: a
# top folder of the tree followed by a path (a glob or a <placeholder> is not
# one), and each relative link target, read from MD's folder
pending=" ${DOCS_PATHS_PENDING-docs/results/loss/} "
doc_paths() {
	local md=$1 rel=${1#"$ROOT"/} hit ln tok
	grep -noE '(^|[^A-Za-z0-9_./~-])(harness|agents|common|rdma|netns|tap|suites|tests|bench|vm|docs)/[A-Za-z0-9_./-]*[^A-Za-z0-9_./-]?' "$md" |
		while IFS= read -r hit; do
			ln=${hit%%:*} tok=${hit#*:}
			tok=${tok#[^A-Za-z0-9_./~-]}
			case $tok in *[\{\<\*\$\[]) continue ;; esac
			tok=${tok%[^A-Za-z0-9_./-]}
			tok=${tok%.}
			[ -e "$ROOT/$tok" ] || [[ $pending == *" $tok "* ]] || echo "$rel:$ln: $tok"
		done
	grep -noE '\]\([^)#[:space:]]+' "$md" | while IFS= read -r hit; do
		ln=${hit%%:*} tok=${hit#*](}
		case $tok in http:* | https:* | mailto:*) continue ;; esac
		[ -e "$(dirname "$md")/$tok" ] && continue
		tok=$(dirname "$rel")/$tok
		tok=${tok#./}
		[[ $pending == *" $tok "* ]] || echo "$rel:$ln: $tok"
	done
}

desc="README.md and docs/*.md name only paths that exist"
hits=$(for md in "$ROOT/README.md" "$D"/*.md; do doc_paths "$md"; done | sort -u)
if [ -z "$hits" ]; then tap_ok "$desc"; else tap_fail "$desc" "$(head -10 <<<"$hits")"; fi

# cites MD: "LINE<TAB>VALUE<TAB>FOLDER<TAB>FIELD" for each figure MD cites in the
# form docs/results/README.md defines: [VALUE unit](.../results/NAME/... "FIELD")
# (an indented code block shows the form: not a citation)
cite_re='\[[0-9][0-9,.]*[^]]*\]\([^) ]*results/[A-Za-z0-9_-]+/[^) ]* "[A-Za-z0-9_.]+"\)'
cites() {
	sed -E 's/^(    |\t).*$//' "$1" | grep -noE "$cite_re" | sed -E \
		's|^([0-9]+):\[(([0-9][0-9,.]*)[^]]*)\]\(([^) ]*results/[A-Za-z0-9_-]+)/[^) ]* "([^"]+)"\)$|\1\t\3\t\4\t\5\t\2|'
}
# found DIR FIELD VALUE TEXT: at a path ending in FIELD in a JSON of DIR, a number
# equal to VALUE at VALUE's precision (commas are thousands), or a string that is
# the link's whole TEXT (a figure rdmacap writes as text, "1670/5264")
found() {
	local v=${3//,/} f d=0
	[[ $v == *.* ]] && f=${v#*.} && d=${#f}
	find "$1" -name '*.json' -o -name '*.jsonl' | sort | while IFS= read -r j; do
		jq -r --arg f "$2" '($f | split(".")) as $k | paths(numbers, strings) as $p |
			select($p | map(tostring) | .[-($k | length):] == $k) | getpath($p) |
			if type == "string" then "s\t" + . else "n\t" + tostring end' "$j" 2>/dev/null
	done | awk -F '\t' -v d="$d" -v want="$v" -v text="$4" '
		($1 == "n" && sprintf("%.*f", d, $2) == want) || ($1 == "s" && $2 == text) { ok = 1; exit }
		END { exit !ok }'
}
desc="every figure README.md, docs/*.md and docs/results/README.md cite is in its result folder's JSON"
bad=
n=0
for md in "$ROOT/README.md" "$D"/*.md "$D/results/README.md"; do
	while IFS=$'\t' read -r -u 3 ln val dir field text; do
		[ -n "$ln" ] || continue
		n=$((n + 1))
		where=${md#"$ROOT"/}:$ln
		case $dir in /*) ;; *) dir=$(dirname "$md")/$dir ;; esac
		if [ ! -d "$dir" ] || [[ $(cd "$dir" && pwd -P) != "$(cd "$D/results" && pwd -P)"/* ]]; then
			bad+=" $where: no folder ${dir#"$ROOT"/}"
		elif ! found "$dir" "$field" "$val" "$text" </dev/null; then
			bad+=" $where: $field=$val not in ${dir#"$ROOT"/}"
		fi
	done 3< <(cites "$md")
done
if [ -z "$bad" ] && [ "$n" -gt 0 ]; then tap_ok "$desc ($n)"; else tap_fail "$desc ($n)" "$bad"; fi

# uncited MD REL: "REL:LINE: FIGURE" for each measured figure MD states outside a
# citation, a code span or a code block: a number with a unit that a setting or
# a rule does not take (us, µs, KB, MB, GB, minutes, hours, a rate per second),
# a ratio or a time with decimals (1.08x, 19.8 s), or bytes in the thousands
# that are no power of two (37,872 B; a buffer of 4,096 B or 16,384 KiB is a
# setting). Not one: a setting that names its constant (a macro) on the same
# line (20 us (`POLL_LINGER_NS`)), an arithmetic's result (= 3.8 s).
uncited() {
	awk -v rel="$2" '
	/^ *```/ { blk = !blk; next }
	blk { next }
	{
		s = $0
		if (code) {
			if ((i = index(s, "`")) == 0) next
			s = substr(s, i + 1)
			code = 0
		}
		gsub(/\[[0-9][^]]*\]\([^) ]*results\/[^)]*\)/, "", s)
		gsub(/[0-9][0-9,.]* ?[A-Za-z\/]+ \(`[A-Z][A-Z0-9_]*`/, "", s)
		gsub(/`[^`]*`/, "", s)
		if ((i = index(s, "`")) > 0) {
			s = substr(s, 1, i - 1)
			code = 1
		}
		gsub(/= *[0-9][0-9,.]*/, "", s)
		while (match(s, /[0-9][0-9,]*(\.[0-9]+)?(-[0-9][0-9,]*(\.[0-9]+)?)? ?(us|µs|KB|MB|GB|TB|B|KiB|MiB|GiB|x|s|ms|minutes?|hours?|conn\/s|cps|connections\/s|round trips\/s|msgs\/s|controllers\/s)([^A-Za-z0-9\/]|$)/)) {
			fig = substr(s, RSTART, RLENGTH)
			pre = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
			s = substr(s, RSTART + RLENGTH)
			if (pre ~ /[A-Za-z0-9_.,\/]/) continue
			sub(/[^A-Za-z0-9\/]$/, "", fig)
			num = fig
			sub(/[^0-9,.].*$/, "", num)
			gsub(/,/, "", num)
			unit = fig
			sub(/^[0-9,.]+(-[0-9,.]+)? ?/, "", unit)
			if (unit ~ /^(s|ms|x)$/ && num !~ /\./) continue
			if (unit ~ /^(B|KiB|MiB|GiB)$/) {
				if (num ~ /\./ || num + 0 < 1000) continue
				n = num + 0
				while (n > 1 && n % 2 == 0) n /= 2
				if (n == 1) continue
			}
			print rel ":" FNR ": " fig
		}
	}' "$1"
}
desc="README.md, docs/*.md and docs/results/README.md: no measured figure without its citation"
hits=$(for md in "$ROOT/README.md" "$D"/*.md "$D/results/README.md"; do uncited "$md" "${md#"$ROOT"/}"; done)
if [ -z "$hits" ]; then tap_ok "$desc"; else
	tap_fail "$desc" "$(head -10 <<<"$hits") (cite each: [VALUE unit](results/NAME/ \"FIELD\"), docs/results/README.md; or say what it is: a setting, an arithmetic)"
fi

# a quote of a result's file, `TEXT` ([NAME](.../results/FOLDER/FILE)), is that
# file's text (spaces and line breaks read as one space)
desc="README.md and docs/*.md: every quote of a result's file is in that file"
# shellcheck disable=SC2016 # the backquotes are Markdown's
quote_re='`[^`]+` \(\[[^]]*\]\([^) ]*results/[A-Za-z0-9_-]+/[^) ]+\)\)'
bad=
n=0
for md in "$ROOT/README.md" "$D"/*.md; do
	while IFS= read -r -u 3 q; do
		[ -n "$q" ] || continue
		n=$((n + 1))
		text=${q#\`} text=${text%%\`*}
		f=${q##*](} f=${f%))}
		case $f in /*) ;; *) f=$(dirname "$md")/$f ;; esac
		[ -f "$f" ] && tr -s ' \n' '  ' <"$f" | grep -qF -- "$text" ||
			bad+=" ${md#"$ROOT"/}: \`$text\` not in ${f#"$ROOT"/}"
	done 3< <(tr -s ' \n' '  ' <"$md" | grep -oE "$quote_re")
done
if [ -z "$bad" ]; then tap_ok "$desc ($n)"; else tap_fail "$desc ($n)" "$bad"; fi

# a link to a result folder that carries a figure must use the citation form:
# a number as link text with no field is a figure nobody can check
desc="README.md, docs/*.md and docs/results/README.md: no figure linked to a result without its field"
hits=$(grep -noE '\[[0-9][0-9,.]*[^]]*\]\([^) ]*results/[A-Za-z0-9_-]+/[^) ]*\)' \
	"$ROOT/README.md" "$D"/*.md "$D/results/README.md" | grep -v '"[A-Za-z0-9_.]*")$')
if [ -z "$hits" ]; then tap_ok "$desc"; else tap_fail "$desc" "$(head -5 <<<"$hits")"; fi
tap_finished
