#!/bin/bash
# tests/cli/test_fleet_slurm.sh OLC MOCK_PLUGIN_ROOT [SHARDS]
#
# Sharded offline tuning as a fleet runs it (docs/fleets-sharded-tuning.md):
# a recorded-workloads file of cheap mock_det workloads is tuned by a Slurm
# array job, task I running `olc calibrate --recorded FILE --shard I/N` into
# its own store, then `olc import --recorded FILE shard-*.txt` merges the
# shards.  Checks: every workload tuned by exactly one task, FILE
# untouched while the shards ran, the merged store holding every workload
# (and checking clean), FILE left with only the workload recorded after
# the shards ran, and nothing measured again from the merged store.
#
# The Slurm is the test's own, on this node only: munged and slurmctld and
# slurmd with a munge key, socket, configuration, state and logs in a
# temporary directory, loopback ports, SlurmUser=root (or this user),
# proctrack/linuxproc, task/none.  Every daemon it starts is stopped on
# exit.  Exit 77 (skipped, the reason printed) only when slurmctld (or the
# munge it needs) cannot start here; anything later that fails is a
# failure.
set -u

OLC=$1
MOCK_ROOT=$2
N=${3:-4}
WORKLOADS=12

T=$(mktemp -d "${TMPDIR:-/tmp}/olc_fleet_slurm.XXXXXX") || exit 1
PIDS=()

cleanup() {
  local p i
  # A job still running would leave its slurmstepd behind the daemons.
  [ -n "${job:-}" ] && scancel "$job" 2>/dev/null && sleep 1
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    p=${PIDS[i]}
    kill "$p" 2>/dev/null
  done
  for p in "${PIDS[@]}"; do
    for i in $(seq 50); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$p" 2>/dev/null
  done
  if [ -n "${KEEP_FLEET_TMP:-}" ]; then
    echo "kept $T"
  else
    rm -rf "$T"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip() {
  echo "test_fleet_slurm: skipped: $*"
  exit 77
}
logs() {
  local f
  for f in "$T"/slurmctld.log "$T"/slurmd.log "$T"/munged.log; do
    [ -f "$f" ] && { echo "--- tail of $f"; tail -n 15 "$f"; }
  done
}
fail() {
  echo "test_fleet_slurm: FAIL: $*"
  logs
  exit 1
}

for tool in munged mungekey slurmctld slurmd sbatch scontrol squeue sinfo; do
  command -v "$tool" >/dev/null ||
    skip "$tool not found: slurmctld cannot start (scripts/setup.sh --test installs slurm-wlm and munge)"
done

# A pid file written by a daemon that forks: its pid, once it is there.
wait_pidfile() {
  local i
  for i in $(seq 100); do
    [ -s "$1" ] && { cat "$1"; return 0; }
    sleep 0.1
  done
  return 1
}

# --- munge: its own key, socket, pid, log and seed.
mungekey --create --keyfile="$T/munge.key" >/dev/null 2>&1 ||
  skip "mungekey could not make a key"
chmod 0755 "$T" # munged wants its socket's directory searchable
munged --force --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" >"$T/munged.out" 2>&1 ||
  skip "munged could not start (slurmctld needs it): $(tail -n 1 "$T/munged.out")"
pid=$(wait_pidfile "$T/munged.pid") || skip "munged wrote no pid file"
PIDS+=("$pid")

# --- slurm.conf
USER_NAME=$(id -un)
HOST=$(hostname -s 2>/dev/null || hostname)
CPUS=$(nproc)
# Two free loopback ports: the first two in a range (picked by the pid, so
# that tests at once differ) that nothing listens on.
free_port() {
  local p=$1 hex
  while :; do
    hex=$(printf ':%04X ' "$p")
    if ! grep -q "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
      echo "$p"
      return
    fi
    p=$((p + 1))
  done
}
base=$((20000 + ($$ % 20000)))
CTLD_PORT=$(free_port "$base")
SLURMD_PORT=$(free_port $((CTLD_PORT + 1)))
mkdir -p "$T/state" "$T/spool" "$T/work"
cat >"$T/slurm.conf" <<EOF
ClusterName=olcfleet
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=$USER_NAME
SlurmdUser=$USER_NAME
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=olc Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf

# --- the daemons
slurmctld -c -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 ||
  skip "slurmctld could not start: $(tail -n 1 "$T/slurmctld.out")"
pid=$(wait_pidfile "$T/slurmctld.pid") || skip "slurmctld did not start: $(tail -n 3 "$T/slurmctld.log" 2>/dev/null)"
PIDS+=("$pid")
ok=0
for i in $(seq 100); do
  scontrol ping 2>/dev/null | grep -q UP && { ok=1; break; }
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ $ok = 1 ] || skip "slurmctld does not answer: $(tail -n 3 "$T/slurmctld.log" 2>/dev/null)"

slurmd -f "$SLURM_CONF" -N "$HOST" >"$T/slurmd.out" 2>&1 ||
  fail "slurmd could not start: $(tail -n 3 "$T/slurmd.out")"
pid=$(wait_pidfile "$T/slurmd.pid") || fail "slurmd wrote no pid file"
PIDS+=("$pid")
ok=0
for i in $(seq 150); do
  state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null)
  case $state in idle* | mix* | alloc*) ok=1; break ;; esac
  sleep 0.2
done
[ $ok = 1 ] || fail "the node did not come up (state '$state')"

# --- the workloads: mock_det MatMul shapes recorded on this machine.
W=$T/work
cat >"$W/olc.ini" <<EOF
[host]
plugin_dirs = $MOCK_ROOT/good
threads = 2
[calibration]
warmup = 1
min_repetitions = 3
min_seconds = 0.001
EOF
{
  echo "# onnx-light recorded workloads v1"
  for i in $(seq "$WORKLOADS"); do
    m=$((i * 8))
    echo "workload backend=mock_det operator=MatMul processor=mock-cpu threads=2" \
      "identity=workload:dtype=float32;k=2;m=$m;n=4 model=- prop.dtype=float32 prop.k=2" \
      "prop.m=$m prop.n=4"
  done
} >"$W/recorded.txt"
cp "$W/recorded.txt" "$W/recorded.orig"

# --- the array job: one task per shard, each into its own store.
cat >"$W/tune.sh" <<EOF
#!/bin/bash
#SBATCH --job-name=olc-tune
#SBATCH --array=0-$((N - 1))
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=$W/tune-%a.out
set -e
I=\$SLURM_ARRAY_TASK_ID
start=\$(date +%s.%N)
"$OLC" calibrate --config "$W/olc.ini" --recorded "$W/recorded.txt" \\
  --shard "\$I/$N" --store "$W/shard-\$I.txt" --json >"$W/tune-\$I.json"
end=\$(date +%s.%N)
echo "shard \$I/$N: \$(awk "BEGIN{printf \"%.2f\", \$end - \$start}") s"
EOF
t0=$(date +%s)
job=$(sbatch --parsable --chdir="$W" "$W/tune.sh") || fail "sbatch refused the array job"
job=${job%%;*}
echo "submitted array job $job: $N tasks"
done_all=0
for i in $(seq 450); do
  if [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; then
    done_all=1
    break
  fi
  sleep 0.2
done
[ $done_all = 1 ] || fail "the array job did not finish in 90 s: $(squeue -j "$job" 2>&1)"
echo "array job finished in $(($(date +%s) - t0)) s"

# --- what each task did
for i in $(seq 0 $((N - 1))); do
  [ -f "$W/tune-$i.out" ] || fail "task $i left no output"
  cat "$W/tune-$i.out"
  grep -q "^shard $i/$N: " "$W/tune-$i.out" || fail "task $i did not finish: $(cat "$W/tune-$i.out")"
done
cmp -s "$W/recorded.txt" "$W/recorded.orig" || fail "a shard changed the recorded file"
# A miss recorded while the fleet tuned: no shard had it, the merge keeps it.
late="workload backend=mock_det operator=MatMul processor=mock-cpu threads=2"
late="$late identity=workload:dtype=float32;k=2;m=4096;n=4 model=- prop.dtype=float32 prop.k=2"
late="$late prop.m=4096 prop.n=4"
echo "$late" >>"$W/recorded.txt"

# Every workload tuned by exactly one shard: the names calibrated now.
for i in $(seq 0 $((N - 1))); do
  grep -o '"workload":"[^"]*","backend":"[^"]*","operator":"[^"]*","outcome":"calibrated"' \
    "$W/tune-$i.json" | sed 's/","backend.*//; s/"workload":"//'
done | sort >"$W/tuned.txt"
total=$(wc -l <"$W/tuned.txt")
unique=$(sort -u "$W/tuned.txt" | wc -l)
echo "tuned: $total workload(s), $unique distinct, of $WORKLOADS recorded"
[ "$total" -eq "$WORKLOADS" ] || fail "$total workloads tuned, expected $WORKLOADS: $(cat "$W/tuned.txt")"
[ "$unique" -eq "$total" ] || fail "a workload was tuned twice: $(uniq -d "$W/tuned.txt")"
nonempty=0
for i in $(seq 0 $((N - 1))); do
  [ -s "$W/shard-$i.txt" ] && nonempty=$((nonempty + 1))
done
echo "$nonempty of $N shard stores hold records"

# --- merge: one import of every shard, then the recorded file emptied.
"$OLC" import --store "$W/merged.txt" --recorded "$W/recorded.txt" "$W"/shard-*.txt \
  >"$W/import.out" 2>&1 || fail "olc import failed: $(cat "$W/import.out")"
cat "$W/import.out"
grep -q "$WORKLOADS recorded workloads removed" "$W/import.out" ||
  fail "the import did not remove every workload from the recorded file"
"$OLC" check "$W/merged.txt" || fail "the merged store does not check"
exact=$("$OLC" list --store "$W/merged.txt" --json | grep -o '"level":"exact"' | wc -l)
echo "merged store: $exact exact records"
[ "$exact" -eq "$WORKLOADS" ] || fail "the merged store holds $exact exact records, expected $WORKLOADS"
left=$(grep -c '^workload ' "$W/recorded.txt")
[ "$left" -eq 1 ] && grep -q 'prop.m=4096 ' "$W/recorded.txt" ||
  fail "the recorded file should hold only the late workload: $(cat "$W/recorded.txt")"
echo "recorded file: the $WORKLOADS tuned workloads removed, the late one kept"
# Served from the merged store now: nothing left to tune.
"$OLC" calibrate --config "$W/olc.ini" --recorded "$W/recorded.orig" --store "$W/merged.txt" \
  --json >"$W/again.json" || fail "calibrating the merged store again failed"
if grep -q '"outcome":"calibrated"' "$W/again.json"; then
  fail "a workload was measured again after the merge"
fi
echo "test_fleet_slurm: ok ($WORKLOADS workloads, $N shards)"
