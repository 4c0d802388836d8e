#!/usr/bin/env bash
# Scale of `kbench track` on a lab's store: a series of LABELS labels
# (default 1000) x 5 runs x 40 metrics, imported into SQLite and into
# PostgreSQL (a throwaway server, as CI's: needs root and postgresql),
# then `track` timed with GNU time on each, at a quarter, half and all of
# the labels (goal: under 2 s on SQLite at 1000 labels, and linear in the
# number of labels).  Both stores must give the same answer.
#
# Needs GNU time (apt-get install time).  Usage: bench/track-scale.sh [LABELS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
labels=${1:-1000}
. "$here/bench/lib/kbench.sh"
kb=$(kbench_release "$here")
tmp=$(mktemp -d)
pg=""
cleanup() { [ -n "$pg" ] && stop_pg; rm -rf "$tmp"; }
trap cleanup EXIT
python3 - "$labels" > "$tmp/series.csv" <<'PY'
import random, sys
n = int(sys.argv[1]); random.seed(1)
print("label,benchmark,metric,unit,value,run,better")
run = 0
for l in range(n):
    for r in range(5):
        run += 1
        for m in range(40):
            shift = 1.08 if (m == 0 and l >= n // 2) else 1.0
            v = random.gauss(100 * shift, 3)
            print(f"6.1.0-{l + 1}-amd64,bench{m // 10},m{m},us,{v:.3f},{run},lower")
PY
timed() { /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > "$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }; read -r wall rss < "$tmp/t"; echo "${wall} s, peak RSS $((rss / 1024)) MB"; }
echo "import of $labels labels x 5 runs x 40 metrics into SQLite: $(timed "$kb" --db "$tmp/s.db" import "$tmp/series.csv" --format csv -q)"
for part in 4 2 1; do
    k=$((labels / part))
    glob_labels=()
    for i in $(seq 1 "$k"); do glob_labels+=(--label "6.1.0-$i-amd64"); done
    echo "track of $k labels on SQLite: $(timed "$kb" --db "$tmp/s.db" "${glob_labels[@]}" track --order version --json)"
done
"$kb" --db "$tmp/s.db" track --json > "$tmp/sqlite.json"
if [ "$(id -u)" = 0 ] && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    . "$here/.ci/pg.sh"
    start_pg >/dev/null
    pg=1
    # The same runs (their ids and times), as a lab's machines push them.
    echo "push of the runs into PostgreSQL: $(timed "$kb" --db "$tmp/s.db" push --to "$KBENCH_TEST_PG")"
    echo "track of $labels labels on PostgreSQL: $(timed "$kb" --db "$KBENCH_TEST_PG" track --json)"
    "$kb" --db "$KBENCH_TEST_PG" track --json > "$tmp/pg.json"
    if cmp -s "$tmp/sqlite.json" "$tmp/pg.json"; then
        echo "both stores give the same answer"
    else
        echo "the stores' answers differ:"; diff "$tmp/sqlite.json" "$tmp/pg.json" > "$tmp/diff" || true
        head -20 "$tmp/diff"
        exit 1
    fi
else
    echo "PostgreSQL: skipped (needs root and postgresql)"
fi
grep -o '"between": \[[^]]*\]' "$tmp/sqlite.json" | head -5 || true
