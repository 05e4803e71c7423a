#!/usr/bin/env bash
# Cold batch probes against the disk's own random-read limits, in one run
# on one file (docs/operations.md, "Cold filters", has the figures).
# A filter file of SIZE_GB (default 8) whose bit array is random bytes
# (written, so that every page is on the disk; each key of a blocked512
# filter touches one 4 KiB page, and K keys of a file that size touch K
# distinct pages but for a few), then ROUNDS rounds (default 4), each:
#   for every coldbatch program given (built from different trees, e.g. main
#   and a branch: alternated before/after pairs), and every MODE:
#     coldbatch -mode MODE: the file dropped from the page cache, K fresh keys
#     (no earlier run read their pages) through the call, keys/s;
#   with COLDSERVE (a coldserve binary: go build -o BIN ./bench/cmd/coldserve), for
#     every mmapbloom command in SERVE: the time from `serve` start to the last of
#     KS (default 100000) fresh keys answered by BF.MEXISTS of 1000 keys over 4
#     connections, the file dropped first (serve[BIN] KEYS/S/SECONDS);
#   fio 4 KiB random reads on the same file, iodepth 1 and 32 (libaio, direct), IOPS, and
#   through the page cache (the mmap engine, 16 jobs: faults of 16 threads at once), the
#   limit of any way of reading pages into a mapping.
# Usage: cold-batch.sh WORKDIR COLDBATCH_BIN... (build each with
#   go build -o BIN ./bench/cmd/coldbatch; MMAPBLOOM: the mmapbloom command
#   that creates the file [mmapbloom on PATH])
# Environment: SIZE_GB [8], K [20000], ROUNDS [4], MODES ["test single"], FIO_SECONDS [8],
#   COLDSERVE and SERVE [none], KS [100000].
set -euo pipefail
W=$1; shift
GB=${SIZE_GB:-8} K=${K:-20000} ROUNDS=${ROUNDS:-4} MODES=${MODES:-test single} SECS=${FIO_SECONDS:-8}
mkdir -p "$W"; F=$W/cold.bloom
if [ ! -f "$F" ]; then
  n=$(python3 -c "print(int($GB*8e9/19.2))")
  "${MMAPBLOOM:-mmapbloom}" create "$F" -n "$n" -p 1e-4 >/dev/null
  sz=$(stat -c %s "$F")
  dd if=/dev/urandom of="$F" bs=1M seek=1 count=$(( sz/1048576 - 2 )) conv=notrunc status=none
  # one key counted: a writable open of a filter whose count is 0 treats it as one being built
  echo https://seed.example/ > "$W/seed.txt"; "${MMAPBLOOM:-mmapbloom}" add "$F" "$W/seed.txt"
  sync
fi
sz=$(stat -c %s "$F")
drop() { python3 -c 'import os,sys; fd=os.open(sys.argv[1],os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)' "$F"; }
fio1() { drop; fio --name=q --filename="$F" --rw=randread --bs=4k --runtime="$SECS" --time_based --size="$sz" --group_reporting --output-format=terse --terse-version=3 "$@" | awk -F';' '{print $8}'; }
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); $(uptime | sed 's/.*load/load/'); file $sz bytes; K=$K"
for round in $(seq "$ROUNDS"); do
  line="round $round:"
  for mode in $MODES; do
    for bin in "$@"; do
      kps=$("$bin" -file "$F" -keys "$K" -mode "$mode" | sed 's/.*keys\/s=//')
      line="$line $mode[$(basename "$bin")] $kps"
    done
  done
  for srv in ${COLDSERVE:+${SERVE:-}}; do
    r=$("$COLDSERVE" -bin "$srv" -file "$F" -keys "${KS:-100000}")
    line="$line serve[$(basename "$srv")] $(echo "$r" | sed 's/.*keys\/s=//')/$(echo "$r" | sed 's/.* seconds=\([0-9.]*\).*/\1/')s"
  done
  echo "$line fio-QD1 $(fio1 --ioengine=libaio --direct=1 --iodepth=1) fio-QD32 $(fio1 --ioengine=libaio --direct=1 --iodepth=32) fio-mmap16 $(fio1 --ioengine=mmap --fadvise_hint=random --numjobs=16) ($(uptime | sed 's/.*average: //'))"
done
