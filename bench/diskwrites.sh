#!/usr/bin/env bash
# Bytes written to the disk by a filter of N generated URL-like keys
# (about 60 bytes each) built by `mmapbloom create` + `add` (adds through
# the file's shared mapping) and by `create --keys` (bits in private
# memory, the file written once), then by long-running writers adding to
# the first file (procbench writes; BENCHMARKS.md, "Disk writes").
# The files live on an ext4 file system in a loop device of its own, so
# that the device's count of sectors written is this benchmark's alone.
# Root only (mount). 50M keys and three 3-minute writers take about 12
# minutes: run by hand, never in CI.
#
#   N=50M LAYOUT=auto FEED=0 FOR=3m WRITERS=2000/0,2000/5s,200/0 bench/diskwrites.sh
#
# FEED > 0 feeds the builds that many keys a second, as a slow source
# (a crawler) would.
set -euo pipefail
cd "$(dirname "$0")"
N=${N:-50M} LAYOUT=${LAYOUT:-auto} FEED=${FEED:-0} FOR=${FOR:-3m} WRITERS=${WRITERS-2000/0,2000/5s,200/0}
work=$(mktemp -d)
cleanup() { umount "$work/mnt" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/procbench" ./cmd/procbench
(cd ../tools && go build -o "$work/mmapbloom" ./mmapbloom)
truncate -s 4G "$work/ext4.img"
mkfs.ext4 -q -F "$work/ext4.img"
mkdir "$work/mnt"
mount -o loop "$work/ext4.img" "$work/mnt"
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) $(uname -r)"
echo "# vm.dirty_expire_centisecs=$(sysctl -n vm.dirty_expire_centisecs) vm.dirty_writeback_centisecs=$(sysctl -n vm.dirty_writeback_centisecs) vm.dirty_ratio=$(sysctl -n vm.dirty_ratio) vm.dirty_background_ratio=$(sysctl -n vm.dirty_background_ratio)"
"$work/procbench" writes -dir "$work/mnt" -n "$N" -layout "$LAYOUT" -feed "$FEED" -for "$FOR" -writers "$WRITERS"
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
