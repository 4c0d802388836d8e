#!/usr/bin/env bash
# The closed loop on a real program's nightly series: a small C program
# whose commit "rev 10" makes its work 25 % slower, nightlies n01..n16
# measured at every commit but 9 and 10, then
#   kbench track <labels> --order given --follow --repo R --build 'make -s' -- job --job-cmd ./prog
# With BUSY=1 the later nightlies (n11 on) are measured beside two CPU hogs
# and the program never changes: the change point must not hold.
# With TABLE=1 the loop's own report is shown as a person reads it.
# Usage: bench/follow-nightly.sh [KBENCH]   (default: the release build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kb=${1:-$here/target/x86_64-unknown-linux-gnu/release/kbench}
busy=${BUSY:-0}
work=$(mktemp -d /tmp/kbench-follow.XXXXXX)
trap 'for p in ${hogs:-}; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
repo=$work/repo db=$work/r.db
mkdir -p "$repo" && cd "$repo"
git init -q && git config user.email k@b && git config user.name kbench
printf 'prog: prog.c\n\tcc -O1 -o prog prog.c\n' > Makefile
for i in $(seq 1 16); do
    n=200000000
    if [ "$busy" = 0 ] && [ "$i" -ge 10 ]; then n=250000000; fi
    cat > prog.c <<C
/* revision $i */
#include <stdio.h>
int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < ${n}UL; i++) x += i ^ (x >> 3); printf("%lu\n", x & 1); return 0; }
C
    git add -A && git commit -qm "rev $i" && git tag "$(printf 'n%02d' "$i")"
done
labels=()
for i in $(seq 1 16); do
    [ "$i" = 9 ] || [ "$i" = 10 ] && continue
    l=$(printf 'n%02d' "$i"); labels+=(--label "$l")
    t=$work/t-$l; git worktree add -q --detach "$t" "$l"; (cd "$t" && make -s >/dev/null)
    if [ "$busy" = 1 ] && [ "$i" -ge 11 ] && [ -z "${hogs:-}" ]; then
        for _ in 1 2; do (while :; do :; done) & hogs="${hogs:-} $!"; done
    fi
    (cd "$t" && "$kb" -q --db "$db" --label "$l" job --job-cmd ./prog --runs 5 >/dev/null)
done
for p in ${hogs:-}; do kill "$p" 2>/dev/null || true; done; hogs=
start=$(date +%s)
if [ -n "${TABLE:-}" ]; then
    # What a person reads at a terminal.
    "$kb" --db "$db" "${labels[@]}" track --order given --follow --repo "$repo" \
        --build 'make -s' -- job --job-cmd ./prog
    exit
fi
"$kb" --db "$db" --json "${labels[@]}" track --order given --follow --repo "$repo" \
    --build 'make -s' --kcidb "$work/kcidb.json" -- job --job-cmd ./prog > "$work/follow.json"
echo "the loop took $(( $(date +%s) - start )) s"
python3 - "$work/follow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["follow"]:
    c = p["culprit"]
    print(p["between"], "held" if p["held"] else "did not hold",
          (p["again"] or {}).get("change_pct"),
          "culprit:", c and (c["subject"], c["confirmed"], c["change_pct"]),
          "explained:", len(p["explanation"]),
          "bisection units:", (p["bisection"] or {}).get("units"))
print("units measured again:", d["units_measured_again"])
PY
if [ -n "${KCIDB_PYTHON:-}" ]; then
    "$KCIDB_PYTHON" -c 'import json,sys,kcidb_io; d=json.load(open(sys.argv[1])); kcidb_io.schema.V5_3.validate(d); assert kcidb_io.schema.V5_3.is_compatible_exactly(d); print("KCIDB v5.3: valid;", len(d["issues"]), "issue(s),", len(d["incidents"]), "incident(s)")' "$work/kcidb.json"
fi
