#!/bin/sh
# Watching a run with real parts: zkpipe-buffer-pipeline ($1) serves --listen while Debian's
# prometheus scrapes it every second; mid-run /metrics passes promtool, /status parses, and
# hostile clients (probe $2) get their codes or are dropped; afterwards Prometheus's HTTP API
# holds the stage series and a histogram with sensible values, and the pipeline's result is
# the one of a run nobody watched. Then the trace and the plot: the trace is valid JSON while
# it is written and at the end, the --release early plot renders with rsvg-convert, and
# --progress prints progress lines where nothing asks for them otherwise. zkpipe-pipeline ($3)
# serves its engine's series too, scraped by the same Prometheus: mid-run its /metrics passes
# promtool, /status lists the partitions in flight, hostile clients leave its proofs alone, and
# Prometheus ends up holding its stage series and partition histograms; its --metrics file holds
# the series of an end-state scrape. zkpipe-prove ($4) shows its phases with --progress.
set -eu
bin=$1
probe=$2
pipeline=$3
prove=$4
tmp=${TMPDIR:-/tmp}/zkpipe-observe-test.$$
mkdir -p "$tmp"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }
. "$(dirname "$0")/support/exits.sh" # skip_checks, skips_done
# Without one of these tools its checks are skipped, the rest runs, and the test exits 77.
for t in prometheus promtool rsvg-convert; do
    have "$t" || skip_checks "$t's checks (no $t)"
done

field() { # field NAME JSON: the value of "NAME" in a flat JSON object
    v=$(printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"*\([0-9a-f][0-9a-f]*\).*/\1/p")
    [ -n "$v" ] || fail "no \"$1\" in: $2"
    echo "$v"
}

wait_for() { # wait_for SECONDS COMMAND...: retry the command every 0.2 s
    n=$(($1 * 5))
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.2
    done
}

if ! "$bin" --listen 127.0.0.1:0 --items 1 --buf-mib 1 --consumer-ms 0 --report-ms 0 \
    >/dev/null 2>"$tmp/err"; then
    if grep -q "built without libmicrohttpd" "$tmp/err"; then
        echo "SKIP: built without libmicrohttpd"
        exit 77
    fi
    cat "$tmp/err" >&2
    fail "--listen does not start"
fi

# 1. A run scraped by Prometheus. 64 buffers of 1 MiB at 100 ms each: about 7 s.
items=64
args="--producers 4 --permits 2 --capacity 2 --items $items --buf-mib 1 --report-ms 0 --json"
ref=$("$bin" $args --consumer-ms 0) || fail "the unwatched run: exit $?"
ref=$(printf '%s\n' "$ref" | tail -n 1)
port=$("$probe" freeport)
prom_port=$("$probe" freeport)
[ "$port" != "$prom_port" ] || prom_port=$("$probe" freeport)
eport=$("$probe" freeport) # zkpipe-pipeline's, in part 4
while [ "$eport" = "$port" ] || [ "$eport" = "$prom_port" ]; do eport=$("$probe" freeport); done
if have prometheus; then
    cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: zkpipe
    static_configs:
      - targets: ['127.0.0.1:$port']
  - job_name: engine
    static_configs:
      - targets: ['127.0.0.1:$eport']
YML
    prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
        --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
    pids="$pids $!"
    wait_for 60 "$probe" get 127.0.0.1 "$prom_port" /-/ready ||
        { cat "$tmp/prometheus.log" >&2; fail "prometheus did not get ready"; }
fi
"$bin" $args --consumer-ms 100 --listen "127.0.0.1:$port" --linger-ms 3000 \
    >"$tmp/run.out" 2>"$tmp/run.err" &
run_pid=$!
pids="$pids $run_pid"
wait_for 20 "$probe" get 127.0.0.1 "$port" /healthz || fail "the endpoint did not come up"
# The line comes just after the server is up: it may follow the first answer.
wait_for 5 grep -q "serving http://127.0.0.1:$port/metrics" "$tmp/run.err" || fail "no serving line"

# Mid-run: the exposition passes promtool, /status parses, the hostile clients.
sleep 1
"$probe" get 127.0.0.1 "$port" /metrics >"$tmp/metrics.txt" || fail "GET /metrics"
grep -q '^zkpipe_stage_items{stage="queued"} ' "$tmp/metrics.txt" || fail "no stage series"
grep -q '^zkpipe_buffer_wait_seconds_bucket{le="+Inf"} ' "$tmp/metrics.txt" ||
    fail "no histogram"
if have promtool; then
    promtool check metrics <"$tmp/metrics.txt" || fail "promtool rejects /metrics"
fi
"$probe" json 127.0.0.1 "$port" /status || fail "/status is not JSON"
"$probe" hostile 127.0.0.1 "$port" || fail "hostile clients"
"$probe" json 127.0.0.1 "$port" /status || fail "/status after the hostile clients"

wait "$run_pid" || fail "the watched run failed: $(cat "$tmp/run.err")"
json=$(tail -n 1 "$tmp/run.out")
echo "$json"
[ "$(field items "$json")" -eq "$items" ] || fail "not every buffer consumed"
[ "$(field live_bytes_at_exit "$json")" -eq 0 ] || fail "bytes live at exit"
[ "$(field peak_in_flight "$json")" -le 4 ] || fail "the bound broke"
[ "$(field checksum "$json")" = "$(field checksum "$ref")" ] ||
    fail "the watched run's checksum differs from the unwatched one"

if have prometheus; then
    # q QUERY: its samples, a line each ("SERIES VALUE"); qv: their values; qn: how many. The
    # probe's own exit is checked, never lost in a pipe: a failed query fails the test.
    q() {
        q_=$("$probe" query 127.0.0.1 "$prom_port" "$1") || fail "Prometheus query failed: $1"
        [ -z "$q_" ] || printf '%s\n' "$q_"
    }
    qv() { q "$1" >"$tmp/q.out" && sed 's/.* //' "$tmp/q.out"; }
    qn() { q "$1" >"$tmp/q.out" && wc -l <"$tmp/q.out"; }
    series=$(qn 'last_over_time(zkpipe_stage_items[5m])')
    [ "$series" -ge 5 ] || fail "Prometheus holds $series zkpipe_stage_items series, not 5"
    up=$(qv 'max_over_time(zkpipe_stage_items{stage="queued"}[5m])')
    [ "$up" -ge 1 ] && [ "$up" -le 2 ] || fail "queued items peaked at $up, not 1..capacity"
    entered=$(qv 'max_over_time(zkpipe_stage_entered_total{stage="synth"}[5m])')
    [ "$entered" -eq "$items" ] || fail "synth entered $entered, not $items"
    count=$(qv 'max_over_time(zkpipe_buffer_consume_seconds_count[5m])')
    [ "$count" -eq "$items" ] || fail "the consume histogram counted $count, not $items"
    # Each buffer took 100 ms or more to consume: none in the buckets below 0.1 s.
    fast=$(qv 'max_over_time(zkpipe_buffer_consume_seconds_bucket{le="0.05"}[5m])')
    [ "$fast" -eq 0 ] || fail "$fast buffers consumed in under 50 ms"
    median=$(q 'histogram_quantile(0.5, max_over_time(zkpipe_buffer_consume_seconds_bucket[5m]))')
    echo "median consume seconds from Prometheus: $median"
    scrapes=$(qv 'count_over_time(up{job="zkpipe"}[5m])')
    [ "$scrapes" -ge 4 ] || fail "only $scrapes scrapes"
fi

# 2. The trace while it is written, and the picture of the pile-up.
"$bin" --producers 8 --items 40 --buf-mib 1 --consumer-ms 50 --report-ms 0 --release early \
    --trace "$tmp/trace.json" --plot "$tmp/early.svg" >/dev/null 2>&1 &
trace_pid=$!
pids="$pids $trace_pid"
sleep 1
# A read that overlaps a flush's write may see the file cut short (zkpipe/trace.h); flushes come
# a second apart, so of reads 100 ms apart at most a few can overlap one. Twenty cut short
# would mean the file is not valid between flushes.
valid=0
for _ in $(seq 20); do
    if "$probe" jsonfile "$tmp/trace.json" 2>/dev/null; then
        valid=1
        break
    fi
    sleep 0.1
done
[ "$valid" -eq 1 ] || fail "the trace is not valid JSON while written"
wait "$trace_pid" || fail "the --trace --plot run failed"
"$probe" jsonfile "$tmp/trace.json" || fail "the finished trace is not valid JSON"
grep -q '"name":"live items","ph":"C"' "$tmp/trace.json" || fail "no live items counters"
grep -q '<polygon' "$tmp/early.svg" || fail "the plot draws nothing"
grep -q 'over the bound' "$tmp/early.svg" || fail "the plot has no bound"
if have rsvg-convert; then
    rsvg-convert -o "$tmp/early.png" "$tmp/early.svg" || fail "rsvg-convert rejects the plot"
    [ "$(head -c 4 "$tmp/early.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "no PNG"
fi

# 3. Progress: nothing on a non-terminal stderr unless asked.
"$bin" --items 4 --buf-mib 1 --consumer-ms 0 --report-ms 0 >/dev/null 2>"$tmp/quiet"
[ ! -s "$tmp/quiet" ] || fail "progress printed unasked: $(cat "$tmp/quiet")"
"$bin" --items 4 --buf-mib 1 --consumer-ms 0 --report-ms 0 --progress >/dev/null 2>"$tmp/loud"
grep -q '^consumed 4/4 buffers' "$tmp/loud" || fail "no progress line with --progress"

# 4. zkpipe-pipeline: the engine's series mid-run and at the end, scraped by Prometheus too; a
# trace and a plot. 6 partitions of 2^14 rows, one prover thread: on a quiet machine about
# 0.2 s each, so that partitions stay in flight for the mid-run checks (2^10 rows were done in
# 0.09 s, before the first poll).
"$pipeline" --jobs 2 --partitions 3 --log-constraints 14 --prover-threads 1 --report-ms 0 \
    --curve bn254 --listen "127.0.0.1:$eport" --linger-ms 4000 --trace "$tmp/engine.json" \
    --plot "$tmp/engine.svg" --metrics "$tmp/engine.prom" --json >"$tmp/engine.out" \
    2>"$tmp/engine.err" &
engine_pid=$!
pids="$pids $engine_pid"
wait_for 30 "$probe" get 127.0.0.1 "$eport" /healthz || fail "zkpipe-pipeline: no endpoint"
# Mid-run: a partition in flight in /status (the endpoint is up before the keys are made).
listed() {
    "$probe" get 127.0.0.1 "$eport" /status >"$tmp/engine-status.json" &&
        grep -q '"partitions":{"count":[1-9][0-9]*,"listed":\[{"job":' "$tmp/engine-status.json"
}
wait_for 60 listed || fail "zkpipe-pipeline: no partition in flight in /status"
"$probe" get 127.0.0.1 "$eport" /metrics >"$tmp/engine-mid.txt" || fail "zkpipe-pipeline: /metrics"
"$probe" jsonfile "$tmp/engine-status.json" || fail "zkpipe-pipeline: /status mid-run is not JSON"
grep -Eq '"stage":"(synth|pending|queued|proving|finalize)","age_s":[0-9.]+,"stage_age_s":' \
    "$tmp/engine-status.json" || fail "zkpipe-pipeline: no stage and age: $(cat "$tmp/engine-status.json")"
grep -q '"permits":{"total":2,' "$tmp/engine-status.json" || fail "zkpipe-pipeline: no permits"
grep -q '"channel":{"items":[0-9]*,"capacity":2,' "$tmp/engine-status.json" ||
    fail "zkpipe-pipeline: no channel occupancy"
grep -q '^zkpipe_partitions_bound 4$' "$tmp/engine-mid.txt" || fail "zkpipe-pipeline: no bound"
if have promtool; then
    promtool check metrics <"$tmp/engine-mid.txt" ||
        fail "promtool rejects zkpipe-pipeline's /metrics mid-run"
fi
"$probe" hostile 127.0.0.1 "$eport" || fail "zkpipe-pipeline: hostile clients"
# During the linger every partition is proved.
wait_for 60 sh -c "'$probe' get 127.0.0.1 $eport /metrics | grep -q '^zkpipe_partitions_total{result=\"proved\"} 6\$'" ||
    fail "zkpipe-pipeline: no proved partitions in /metrics"
"$probe" get 127.0.0.1 "$eport" /metrics >"$tmp/engine.txt"
grep -q '^zkpipe_partition_prove_seconds_count 6$' "$tmp/engine.txt" || fail "no prove histogram"
if have promtool; then
    promtool check metrics <"$tmp/engine.txt" || fail "promtool rejects zkpipe-pipeline's /metrics"
fi
"$probe" json 127.0.0.1 "$eport" /status || fail "zkpipe-pipeline: /status"
wait "$engine_pid" || fail "zkpipe-pipeline failed: $(cat "$tmp/engine.err")"
json=$(tail -n 1 "$tmp/engine.out")
[ "$(field proofs_verified "$json")" -eq 6 ] || fail "zkpipe-pipeline: not every proof verified"
[ "$(field live_bytes_at_exit "$json")" -eq 0 ] || fail "zkpipe-pipeline: bytes live at exit"
# --metrics holds the series of an end-state scrape, the engine's included, and no others.
series_of() { grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort; }
series_of "$tmp/engine.txt" >"$tmp/scraped.series"
series_of "$tmp/engine.prom" >"$tmp/file.series"
grep -q '^zkpipe_partition_prove_seconds_count$' "$tmp/file.series" ||
    fail "--metrics has no engine series: $(head -c 300 "$tmp/engine.prom")"
diff "$tmp/scraped.series" "$tmp/file.series" >&2 ||
    fail "--metrics and the end-state /metrics hold different series"
grep -q '^zkpipe_partitions_total{result="proved"} 6$' "$tmp/engine.prom" ||
    fail "--metrics: not 6 partitions proved"
"$probe" jsonfile "$tmp/engine.json" || fail "zkpipe-pipeline's trace is not JSON"
if have rsvg-convert; then
    rsvg-convert -o "$tmp/engine.png" "$tmp/engine.svg" || fail "rsvg-convert: engine plot"
fi
if have prometheus; then
    # What Prometheus scraped of that run: its stage series, and partition histograms that hold
    # all six partitions with non-zero seconds.
    # The linger let it scrape the end state at least twice; its last samples may take a moment.
    proved() {
        [ "$(qv 'max_over_time(zkpipe_partitions_total{job="engine",result="proved"}[5m])')" = 6 ]
    }
    wait_for 10 proved || fail "Prometheus did not see zkpipe-pipeline's 6 partitions proved"
    ups=$(qv 'sum_over_time(up{job="engine"}[5m])')
    [ "$ups" -ge 2 ] || fail "Prometheus scraped zkpipe-pipeline $ups times, not 2 or more"
    series=$(qn 'last_over_time(zkpipe_stage_items{job="engine"}[5m])')
    [ "$series" -ge 5 ] || fail "Prometheus holds $series engine zkpipe_stage_items series, not 5"
    for h in synth wait prove; do
        count=$(qv "max_over_time(zkpipe_partition_${h}_seconds_count{job=\"engine\"}[5m])")
        [ "$count" = 6 ] || fail "Prometheus: zkpipe_partition_${h}_seconds_count is $count, not 6"
    done
    sum=$(qv 'max_over_time(zkpipe_partition_prove_seconds_sum{job="engine"}[5m]) > 0')
    [ -n "$sum" ] || fail "Prometheus: no prove seconds"
    median=$(q 'histogram_quantile(0.5, max_over_time(zkpipe_partition_prove_seconds_bucket{job="engine"}[5m]))')
    echo "median prove seconds per partition from Prometheus: $median"
fi
# 5. zkpipe-prove: quiet unless asked, its phases with --progress.
fx=$(dirname "$0")/interop/fixtures/bn128/multiplier
"$prove" "$fx/circuit.zkey" "$fx/witness.wtns" "$tmp/p.json" "$tmp/q.json" 2>"$tmp/quiet"
[ ! -s "$tmp/quiet" ] || fail "zkpipe-prove printed unasked: $(cat "$tmp/quiet")"
"$prove" --progress --full-check "$fx/circuit.zkey" "$fx/witness.wtns" "$tmp/p.json" \
    "$tmp/q.json" 2>"$tmp/loud"
grep -q '^zkpipe-prove: 5/5 writing the proof' "$tmp/loud" || fail "zkpipe-prove: no progress"
skips_done
echo "PASS"
