#!/usr/bin/env bash
# Runs fastlines-core's criterion benches (benches/core.rs) and compares them with a saved
# baseline, flagging slowdowns.
#
# Usage (from anywhere in the repository):
#   crates/fastlines-core/benches/compare.sh save    [FILTER]  # run, save as the baseline
#   crates/fastlines-core/benches/compare.sh compare [FILTER]  # run, compare with the baseline
#   crates/fastlines-core/benches/compare.sh report            # re-print the last comparison
#
# The usual flow: `save` on the commit to compare against (e.g. main), then `compare` on the
# change. `compare` runs the benches against the baseline and prints one row per benchmark:
# baseline and new throughput, and the change in time (+ is slower). It then re-measures what
# it flagged (RETRIES passes) and exits 1 if a benchmark was more than THRESHOLD percent slower
# in every pass, 0 if none was, 2 on a usage error or a missing baseline. FILTER is criterion's
# regex on benchmark names (`splitter`, `decode/utf8`); the table covers what was run.
#
# Noise: on the shared 2-core development machine, two runs of the same binary a minute apart
# differed by up to 45% in their medians, by sustained contention that criterion's per-run
# confidence intervals cannot see; their fastest samples mostly agreed within 5%, hence
# STAT=min by default. Trust a 5% verdict from a quiet machine only.
#
# Environment:
#   BASELINE=main   the baseline's name (criterion's --save-baseline / --baseline)
#   THRESHOLD=5     slowdown, in percent, that counts as a regression
#   STAT=min        what is compared: min, the fastest sample's time per iteration (from
#                   sample.json), least disturbed by other processes; or median or mean (from
#                   estimates.json), which come with criterion's 95% confidence interval
#   FLAG_ON=ci      with median or mean: ci flags only when the whole confidence interval of the
#                   change is above THRESHOLD; point flags on the point estimate. min: point.
#   RETRIES=1       passes re-measuring the flagged benchmarks before calling them regressed
#   CRITERION_HOME  where criterion writes (default: <cargo target dir>/criterion)
#
# Equivalent raw commands: `cargo bench -p fastlines-core --bench core -- --save-baseline main`
# and `cargo bench -p fastlines-core --bench core -- --baseline main`; the table is built from
# the JSON criterion writes under target/criterion/<benchmark>/{new,main,change}/.
set -euo pipefail

mode="${1:-}"
shift || true
baseline="${BASELINE:-main}"
threshold="${THRESHOLD:-5}"
stat="${STAT:-min}"
flag_on="${FLAG_ON:-ci}"
retries="${RETRIES:-1}"

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
}

case "$mode" in save | compare | report) ;; *) usage ;; esac
case "$stat" in min | median | mean) ;; *) echo "STAT must be min, median or mean" >&2 && exit 2 ;; esac
case "$flag_on" in ci | point) ;; *) echo "FLAG_ON must be ci or point" >&2 && exit 2 ;; esac
[[ $# -le 1 ]] || usage

cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
target_dir="$(cargo metadata --format-version 1 --no-deps |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')"
criterion_dir="${CRITERION_HOME:-$target_dir/criterion}"
# When the last `compare` started, so `report` leaves out results of benchmarks since removed.
started_file="$criterion_dir/.compare-started"

bench() {
    cargo bench -p fastlines-core --bench core -- --noplot "$@"
}

now_ms() {
    node -e 'console.log(Date.now())'
}

# Prints the comparison table for the benchmarks whose results are newer than $1 (epoch ms)
# and writes the names of those that regressed to $2, one per line; exits 1 if one did.
summarize() {
    node - "$criterion_dir" "$baseline" "$threshold" "$stat" "$flag_on" "$1" "$2" <<'EOF'
const fs = require("fs");
const path = require("path");
const [dir, baseline, thresholdText, stat, flagOn, sinceText, flaggedFile] = process.argv.slice(2);
const threshold = Number(thresholdText) / 100;
const since = Number(sinceText);
const readJson = (...parts) => JSON.parse(fs.readFileSync(path.join(...parts), "utf8"));

// Each benchmark's results: <dir>/<group>/<function>[/<value>]/{new,<baseline>,change}/.
function* benchmarkDirs(root) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    if (entry.name === "new") {
      if (fs.existsSync(path.join(root, "new", "benchmark.json"))) yield root;
    } else if (![baseline, "base", "change", "report"].includes(entry.name)) {
      yield* benchmarkDirs(path.join(root, entry.name));
    }
  }
}

// Nanoseconds per iteration, with the 95% confidence interval when criterion estimated one.
function measure(bench, run) {
  if (stat === "min") {
    const { iters, times } = readJson(bench, run, "sample.json");
    return { ns: Math.min(...times.map((time, i) => time / iters[i])) };
  }
  const estimate = readJson(bench, run, "estimates.json")[stat];
  return { ns: estimate.point_estimate, ci: estimate.confidence_interval };
}

// The change in time and its confidence interval: criterion's own bootstrap of the relative
// change (written by the run that compared with this baseline) or, failing that, the widest
// change the two intervals allow.
function change(bench, newer, older) {
  const point = newer.ns / older.ns - 1;
  if (!newer.ci) return { point };
  const file = path.join(bench, "change", "estimates.json");
  const fresh = fs.existsSync(file) && fs.statSync(file).mtimeMs >= fs.statSync(path.join(bench, "new", "estimates.json")).mtimeMs;
  if (fresh) {
    const { lower_bound, upper_bound } = readJson(file)[stat].confidence_interval;
    return { point, ci: [lower_bound, upper_bound] };
  }
  return {
    point,
    ci: [newer.ci.lower_bound / older.ci.upper_bound - 1, newer.ci.upper_bound / older.ci.lower_bound - 1],
  };
}

const pct = (x) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
const gbps = (bytes, ns) => (bytes ? (bytes / ns).toFixed(2) : "-");

if (!fs.existsSync(dir)) {
  console.error(`no criterion results in ${dir}`);
  process.exit(2);
}
const rows = [];
for (const bench of benchmarkDirs(dir)) {
  if (fs.statSync(path.join(bench, "new", "sample.json")).mtimeMs < since) continue;
  const id = readJson(bench, "new", "benchmark.json");
  if (!fs.existsSync(path.join(bench, baseline, "sample.json"))) {
    rows.push({ name: id.full_id, base: "-", now: "-", change: "-", ci: "-", verdict: `no ${baseline} baseline` });
    continue;
  }
  const newer = measure(bench, "new");
  const older = measure(bench, baseline);
  const { point, ci } = change(bench, newer, older);
  const [low, high] = ci && flagOn === "ci" ? ci : [point, point];
  const bytes = id.throughput && (id.throughput.BytesDecimal ?? id.throughput.Bytes);
  rows.push({
    name: id.full_id,
    base: gbps(bytes, older.ns),
    now: gbps(bytes, newer.ns),
    change: pct(point),
    ci: ci ? `[${pct(ci[0])}, ${pct(ci[1])}]` : "-",
    verdict: low > threshold ? "REGRESSED" : high < -threshold ? "faster" : "ok",
  });
}
if (rows.length === 0) {
  console.error("no benchmark results to compare (was anything run?)");
  process.exit(2);
}
rows.sort((a, b) => a.name.localeCompare(b.name));

const header = {
  name: "benchmark",
  base: `${baseline} GB/s`,
  now: "new GB/s",
  change: `time (${stat})`,
  ci: "95% CI",
  verdict: "verdict",
};
const columns = Object.keys(header);
const widths = columns.map((c) => Math.max(...[header, ...rows].map((row) => row[c].length)));
const line = (row) => columns.map((c, i) => (i === 0 ? row[c].padEnd(widths[i]) : row[c].padStart(widths[i]))).join("  ");
console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
rows.forEach((row) => console.log(line(row)));

const regressions = rows.filter((row) => row.verdict === "REGRESSED");
fs.writeFileSync(flaggedFile, regressions.map((row) => `${row.name}\n`).join(""));
const rule = `${stat === "min" || flagOn === "point" ? "" : "whole 95% CI of the "}${stat} time more than ${thresholdText}% above ${baseline}`;
console.log(`\n${regressions.length || "no"} regression(s): ${rule}`);
process.exit(regressions.length > 0 ? 1 : 0);
EOF
}

flagged="$(mktemp)"
trap 'rm -f "$flagged"' EXIT

case "$mode" in
save)
    bench --save-baseline "$baseline" "$@"
    echo
    echo "saved baseline \"$baseline\" under $criterion_dir"
    ;;
compare)
    if ! compgen -G "$criterion_dir/*/*/$baseline/sample.json" >/dev/null &&
        ! compgen -G "$criterion_dir/*/*/*/$baseline/sample.json" >/dev/null; then
        echo "no \"$baseline\" baseline under $criterion_dir: run '$0 save' first" >&2
        exit 2
    fi
    started="$(now_ms)"
    # Lenient: a benchmark added since the baseline was saved is reported as such, not fatal.
    bench --baseline-lenient "$baseline" "$@"
    echo "$started" >"$started_file"
    status=0
    summarize "$started" "$flagged" || status=$?
    for ((pass = 1; pass <= retries && status == 1; pass++)); do
        # Just the flagged benchmarks, by exact name (names hold no regex metacharacters).
        filter="^($(paste -sd '|' "$flagged"))\$"
        echo
        echo "re-measuring $(wc -l <"$flagged") flagged benchmark(s), pass $pass of $retries"
        pass_started="$(now_ms)"
        bench --baseline-lenient "$baseline" "$filter"
        status=0
        summarize "$pass_started" "$flagged" || status=$?
    done
    exit "$status"
    ;;
report)
    summarize "$(cat "$started_file" 2>/dev/null || echo 0)" "$flagged"
    ;;
esac
