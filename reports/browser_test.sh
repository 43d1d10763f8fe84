#!/usr/bin/env bash
# CTest `report.browser`: writes a report from the fixture runs with `rdmacheck report`,
# checks report.html is self-contained, then renders it in headless Chromium (Debian's
# `chromium`, from scripts/install-deps.sh) and checks, in the DOM after the page's script
# ran, that the matrix, the counts and the filters are there and work. Then checks that the
# page fits a laptop screen: at 1366x800 the page does not scroll sideways
# (reports/fit_check.sh: scrollWidth <= 1366, else the widest elements are named), on the
# fixture runs and on two real lab runs with their whole environment (lab-rxe0, lab-siw0:
# doctor findings, counters, the impairment, the floor). Leaves screenshots, OUT/report.png
# and OUT/lab/report-1366.png (OUT is in the build dir, never in git), and checks the
# hand-over rows (integrators.csv, integrators.md) were written.
#
#   reports/browser_test.sh RDMACHECK_BIN TESTDATA_DIR OUT_DIR
set -euo pipefail
bin=$1 data=$2 out=$3

fails=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fails=$((fails + 1)); fi
}
has() { grep -q -- "$2" "$1"; }
count() { grep -o -- "$2" "$1" | wc -l; }

rm -rf "$out"
mkdir -p "$out"
"$bin" report --out="$out" "$data/rxe0" "$data/siw0" >"$out/summary.txt"
html=$out/report.html

# Self-contained: nothing fetched from anywhere.
check "no external src/href" bash -c "! grep -Eiq '(src|href)=\"?(https?:)?//' '$html'"
check "no <link> or <script src>" bash -c "! grep -Eiq '<link|<script[^>]* src=' '$html'"
check "summary printed" has "$out/summary.txt" 'rdmacheck report: 2 device(s), 9 tests'

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "FAILED: chromium not found: run scripts/install-deps.sh (package chromium)"
  exit 1
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chrome() { # chrome ARGS... URL: headless, isolated, nothing fetched
  HOME=$profile timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
    --user-data-dir="$profile/data" "$@" 2>>"$out/chromium.log"
}
url=file://$(cd "$(dirname "$html")" && pwd)/report.html

dom=$out/dom.html
chrome --dump-dom "$url" >"$dom"
check "the page's script ran" has "$dom" 'data-report-ready="1"'
check "test matrix with 9 rows" test "$(count "$dom" '<tr class="row')" -eq 9
check "capability matrix" has "$dom" 'id="capability-matrix"'
check "matrix columns rxe0 and siw0" has "$dom" 'data-col="1" aria-sort="none">siw0</th>'
check "counts: rxe0 8 passed" has "$dom" 'id="count-0-pass">8<'
check "counts: siw0 1 failed" has "$dom" 'id="count-1-fail">1<'
check "script counted all rows" has "$dom" 'Showing <span id="visible-count">9</span> of 9 tests'
check "script counted siw0's statuses" has "$dom" 'data-count="1-skip">2 skipped<'
check "catalogue anchor for each test" has "$dom" 'id="cat-OpsTest.SendArrivesIntact"'
check "xfail reason in quirks" has "$dom" 'rxe allocates MWs only with the MW flag'

chrome --dump-dom "$url#tests?status=problem" >"$dom"
check "status filter: 2 rows with a failure" has "$dom" 'Showing <span id="visible-count">2</span> of 9'
check "status filter: 7 rows hidden" test "$(count "$dom" '<tr class="row[^"]*hidden')" -eq 7

chrome --dump-dom "$url#tests?diff=1" >"$dom"
check "differences only: 5 rows" has "$dom" 'Showing <span id="visible-count">5</span> of 9'

chrome --dump-dom "$url#tests?device=siw0&status=skip" >"$dom"
check "device filter: siw0's 2 skips" has "$dom" 'Showing <span id="visible-count">2</span> of 9'
check "device filter hides rxe0's column" has "$dom" 'data-col="0" aria-sort="none" class="hidden"'

chrome --dump-dom "$url#tests?sort=d1:asc" >"$dom"
first=$(grep -o '<tr class="row[^>]*>.\{0,400\}' "$dom" | head -n1)
check "sort by siw0: the failure first" grep -q PkeyIndexZeroIsTheDefaultPartition <<<"$first"

chrome --window-size=1300,2600 --screenshot="$out/report.png" "$url" >/dev/null
check "screenshot $out/report.png" test -s "$out/report.png"

# A laptop screen: 1366 px wide, no sideways scroll. The lab runs carry what once stretched
# the Environment table (counters as raw JSON, doctor findings, the impairment's figures).
here=$(cd "$(dirname "$0")" && pwd)
check "fixture report fits 1366 px" "$here/fit_check.sh" "$html" 1366
mkdir -p "$out/lab"
"$bin" report --out="$out/lab" "$data/lab-rxe0" "$data/lab-siw0" >"$out/lab/summary.txt" 2>&1 ||
  echo "FAILED: rdmacheck report on the lab runs: $(cat "$out/lab/summary.txt")"
check "lab report fits 1366 px" "$here/fit_check.sh" "$out/lab/report.html" 1366
check "lab report: counters as name = value" has "$out/lab/report.html" 'rdma_sends = 39'
check "lab report: no counters as raw JSON" bash -c "! grep -q '{&quot;completer_retry_err' '$out/lab/report.html'"
chrome --window-size=1366,800 --screenshot="$out/lab/report-1366.png" "file://$(cd "$out/lab" && pwd)/report.html" >/dev/null
check "screenshot $out/lab/report-1366.png" test -s "$out/lab/report-1366.png"

# The hand-over rows beside the report.
check "integrators.csv: header and 2 rows" test "$(grep -c . "$out/integrators.csv")" -eq 3
check "integrators.csv: lab rxe0's floor 3/3" grep -q '^rxe0,oui:0xffffff,part:0,rxe,RoCE,.*,unversioned,3,3,' "$out/lab/integrators.csv"
check "integrators.md written" has "$out/lab/integrators.md" '| rxe0 | oui:0xffffff |'

if [ "$fails" -ne 0 ]; then
  echo "report.browser: $fails check(s) failed (DOM in $dom, browser log in $out/chromium.log)"
  exit 1
fi
echo "report.browser: all checks passed; screenshot $out/report.png"
