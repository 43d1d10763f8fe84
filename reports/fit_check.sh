#!/usr/bin/env bash
# Does a report page fit a laptop screen? Loads HTML in headless Chromium at WIDTHx800
# (default 1366, a common laptop) and checks, in the DOM after layout, that the page does
# not scroll sideways: document.documentElement.scrollWidth <= WIDTH. When it does, names
# the widest elements (the innermost ones that end past the right edge, widest first), so
# the fix starts at the right cell. Every <details> is opened first: folded parts must fit
# too. Exit 0 fits, 1 does not, 2 could not tell.
#
#   reports/fit_check.sh HTML [WIDTH]
#
# Used by reports/browser_test.sh (CTest `report.browser`) on the fixture runs; run it by
# hand on a real report: `rdmacheck report --out=/tmp/r out/rxe0 out/siw0 &&
# reports/fit_check.sh /tmp/r/report.html`. The page is copied beside itself with a probe
# script appended (the original is left alone); the copy is removed at the end.
set -euo pipefail
html=$1 width=${2:-1366}

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "fit_check: chromium not found: run scripts/install-deps.sh (package chromium)" >&2
  exit 2
fi
[ -r "$html" ] || { echo "fit_check: cannot read $html" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
probe=$(dirname "$html")/.fit-probe-$$.html
trap 'rm -rf "$work" "$probe"' EXIT

# The probe runs after the page's own script (it is appended last), reads the layout (which
# forces it) and writes what it found into the DOM, where --dump-dom shows it.
cat "$html" - >"$probe" <<EOF
<script>
(function () {
  var limit = $width, doc = document.documentElement, out = [];
  // The worst case: every folded part open (declared attributes, long cells, lists).
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  out.push('scrollWidth=' + doc.scrollWidth + ' innerWidth=' + window.innerWidth);
  var name = function (e) {
    return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
        (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '');
  };
  var text = function (e) { return (e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 90); };
  // The outermost elements that end past the edge while their parent does not (a table in
  // its section), then the widest cells inside each: where the width comes from.
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= limit + 0.5) return;
    if (e.parentElement && e.parentElement.getBoundingClientRect().right > limit + 0.5) return;
    var where = e.closest('section');
    out.push('widest: ' + name(e) + (where ? ' in section#' + where.id : '') + ' ends at ' + Math.round(r.right) + ' px');
    var cells = Array.prototype.slice.call(e.querySelectorAll('td, th, pre, li, dd, p')).map(function (c) {
      var range = document.createRange();
      range.selectNodeContents(c);  // the content's own width, not its column's
      return [range.getBoundingClientRect().width, c];
    });
    cells.sort(function (a, b) { return b[0] - a[0]; });
    cells.slice(0, 3).forEach(function (c) {
      out.push('widest:   ' + name(c[1]) + ' holds ' + Math.round(c[0]) + ' px: ' + text(c[1]));
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'fit-probe';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
})();
</script>
EOF

HOME=$work timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
  --user-data-dir="$work/data" --window-size="$width,800" --dump-dom "file://$(cd "$(dirname "$probe")" && pwd)/$(basename "$probe")" \
  >"$work/dom.html" 2>"$work/chromium.log" || true
found=$(sed -n '/<pre id="fit-probe">/,/<\/pre>/p' "$work/dom.html" | sed -e 's/.*<pre id="fit-probe">//' -e 's#</pre>.*##' |
  sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g')
if [ -z "$found" ]; then
  echo "fit_check: the probe did not run in Chromium (log: $(tail -n 3 "$work/chromium.log" | tr '\n' ' '))" >&2
  exit 2
fi
scroll=$(sed -n 's/^scrollWidth=\([0-9]*\) innerWidth=\([0-9]*\).*/\1/p' <<<"$found")
inner=$(sed -n 's/^scrollWidth=\([0-9]*\) innerWidth=\([0-9]*\).*/\2/p' <<<"$found")
if [ "$inner" != "$width" ]; then
  echo "fit_check: the window is $inner px wide, not $width: cannot tell" >&2
  exit 2
fi
if [ "$scroll" -le "$width" ]; then
  echo "fit_check: $html fits $width px (scrollWidth $scroll)"
  exit 0
fi
echo "fit_check: $html is $scroll px wide, more than $width: it scrolls sideways"
grep '^widest:' <<<"$found" | sed 's/^/  /'
exit 1
