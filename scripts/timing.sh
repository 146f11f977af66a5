# Sourced by scripts/demo.sh, the suites of `make test` and scripts/build.sh:
# the wall time of every build and test step, printed as it ends and kept in
# target/timings/ so that a run can be compared with the last one.
#
#   timing_begin JOB        start JOB's record (target/timings/JOB.tsv; the
#                           previous run's record becomes JOB.prev.tsv)
#   timed KIND NAME CMD...  run CMD; print "-- KIND NAME: 12 s" (on stderr) and append
#                           "KIND<TAB>NAME<TAB>SECONDS<TAB>STATUS" to the record
#                           of the job in progress (DORY_TIMINGS), KIND being
#                           setup, build, test or demo; returns CMD's status
#   timing_summary JOB      print the record: one line per step (a step run
#                           more than once is summed, with its count), the
#                           last run's time beside it, and the total of each kind
#
# DORY_TIMINGS (the record's path) is exported by timing_begin, so steps of
# child scripts land in their parent's record; a script run alone (no job in
# progress) still prints its steps' times and writes no record.

timing_now() { date +%s.%N; }

timing_begin() {
    local job="$1" dir
    dir="${DORY_TIMINGS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/timings}"
    mkdir -p "$dir"
    if [[ -s "$dir/$job.tsv" ]]; then mv "$dir/$job.tsv" "$dir/$job.prev.tsv"; fi
    export DORY_TIMINGS="$dir/$job.tsv"
    : >"$DORY_TIMINGS"
    export DORY_TIMINGS_START
    DORY_TIMINGS_START="$(timing_now)"
}

# timing_record KIND NAME SECONDS STATUS: appends one line to the record.
timing_record() {
    [[ -n "${DORY_TIMINGS:-}" ]] || return 0
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$DORY_TIMINGS"
}

timed() {
    local kind="$1" name="$2" start rc=0 took
    shift 2
    start="$(timing_now)"
    "$@" || rc=$?
    took="$(awk -v a="$start" -v b="$(timing_now)" 'BEGIN { printf "%.1f", b - a }')"
    printf -- '-- %s %s: %s s%s\n' "$kind" "$name" "$took" "$([[ $rc -eq 0 ]] || echo " (exit $rc)")" >&2
    timing_record "$kind" "$name" "$took" "$rc"
    return "$rc"
}

timing_summary() {
    local job="$1" file prev total
    file="${DORY_TIMINGS:-}"
    [[ -n "$file" && -f "$file" ]] || return 0
    prev="${file%.tsv}.prev.tsv"
    [[ -f "$prev" ]] || prev=/dev/null
    total="$(awk -v a="${DORY_TIMINGS_START:-0}" -v b="$(timing_now)" 'BEGIN { printf "%.0f", b - a }')"
    echo
    echo "== $job: time per step (${file#"$PWD"/}; the last run's beside it)"
    awk -F'\t' -v total="$total" -v prev="$prev" '
        BEGIN {
            while ((getline line < prev) > 0) {
                split(line, f, "\t")
                last[f[1] "\t" f[2]] += f[3]
                lasttotal[f[1]] += f[3]
            }
        }
        {
            key = $1 "\t" $2
            if (!(key in took)) { keys[++m] = key }
            took[key] += $3
            count[key]++
            if ($4 != 0) { failed[key] = 1 }
            sum[$1] += $3
            if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
        }
        END {
            for (i = 1; i <= m; i++) {
                key = keys[i]
                split(key, f, "\t")
                name = substr(f[2], 1, 58)
                if (count[key] > 1) { name = substr(f[2], 1, 52) " (x" count[key] ")" }
                was = (key in last) ? sprintf("%8.1f s", last[key]) : "         -"
                printf "   %-6s %-58s %8.1f s  %s%s\n", f[1], name, took[key], was, (key in failed ? "  FAILED" : "")
            }
            for (i = 1; i <= n; i++) {
                k = order[i]
                was = (k in lasttotal) ? sprintf("%8.1f s", lasttotal[k]) : "         -"
                printf "   %-6s %-58s %8.1f s  %s\n", "total", k " steps", sum[k], was
            }
            printf "   %-6s %-58s %8d s\n", "wall", "the whole run (steps can overlap)", total
        }' "$file"
}
