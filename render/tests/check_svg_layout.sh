#!/usr/bin/env bash
# Lays out HTML reports in headless Chromium and fails when, inside any of their SVG charts, two
# text elements overlap (tick labels, axis titles, legend labels) or a text sticks out of its SVG.
# Exit 77 (skipped) when Chromium is not installed.
#   check_svg_layout.sh REPORT.html...
set -euo pipefail
browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [[ -z $browser ]]; then
  echo "skipped: no headless Chromium (apt-get install -y chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/check.js" <<'JS'
<script>
// Each text as the quadrilateral it covers on the screen (its own box through its transform, so
// rotated labels are judged by their real outline), compared by the separating-axis test.
function corners(t) {
  const b = t.getBBox(), m = t.getScreenCTM();
  return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
    .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
}
function separated(p, q) {
  for (const poly of [p, q]) {
    for (let i = 0; i < 4; ++i) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      const nx = y1 - y2, ny = x2 - x1, len = Math.hypot(nx, ny) || 1;
      const pr = p.map(([x, y]) => (x * nx + y * ny) / len);
      const qr = q.map(([x, y]) => (x * nx + y * ny) / len);
      // 1 px of tolerance for antialiased edges.
      if (Math.max(...pr) <= Math.min(...qr) + 1 || Math.max(...qr) <= Math.min(...pr) + 1) return true;
    }
  }
  return false;
}
const found = [];
document.querySelectorAll('svg').forEach((svg, n) => {
  const frame = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')]
    .filter(t => t.getBBox().width > 0)
    .map(t => ({text: t.textContent, quad: corners(t)}));
  for (const t of texts) {
    const xs = t.quad.map(c => c[0]), ys = t.quad.map(c => c[1]);
    if (Math.min(...xs) < frame.left - 1 || Math.max(...xs) > frame.right + 1 ||
        Math.min(...ys) < frame.top - 1 || Math.max(...ys) > frame.bottom + 1)
      found.push(`svg ${n}: '${t.text}' outside its chart`);
  }
  for (let i = 0; i < texts.length; ++i)
    for (let j = i + 1; j < texts.length; ++j)
      if (!separated(texts[i].quad, texts[j].quad))
        found.push(`svg ${n}: '${texts[i].text}' overlaps '${texts[j].text}'`);
});
const out = document.createElement('pre');
out.id = 'layout-check';
out.textContent = found.length ? found.join('\n') : 'layout: ok';
document.body.appendChild(out);
</script>
JS
status=0
for report in "$@"; do
  page="$work/$(basename "$report")"
  sed 's#</body>#__CHECK__</body>#' "$report" >"$page.tmp"
  python3 - "$page.tmp" "$work/check.js" "$page" <<'PY'
import sys
page, script, out = sys.argv[1:]
open(out, "w").write(open(page).read().replace("__CHECK__", open(script).read()))
PY
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1200,2000 --user-data-dir="$work/profile" --dump-dom "file://$page" \
    2>/dev/null >"$page.dom"
  result=$(python3 -c 'import html,re,sys; m=re.search(r"<pre id=\"layout-check\">(.*?)</pre>", open(sys.argv[1]).read(), re.S); print(html.unescape(m.group(1)) if m else "no result: the page did not run the check")' "$page.dom")
  if [[ $result != "layout: ok" ]]; then
    echo "$report:"; echo "$result" | sed 's/^/  /'; status=1
  else
    echo "$report: $(grep -o '<svg' "$report" | wc -l) charts, no text overlaps"
  fi
done
exit $status
