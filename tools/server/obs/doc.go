// Package obs holds the counters behind the server's INFO, SLOWLOG and
// LATENCY commands and its metrics: latency histograms, per-command
// counters, error replies by code, Redis's slow log and its latency
// monitor. It knows nothing of connections or of the command table;
// package server feeds it and renders what it holds in Redis's formats.
//
// # Basics
//
// A [Hist] counts durations in nanoseconds in log-linear buckets (at
// most 12.5% apart); [Hist.Snapshot] copies them for [Snapshot.Percentile]
// (INFO latencystats), [Snapshot.PowerBuckets] (LATENCY HISTOGRAM) and
// [Snapshot.Below] (a metrics exporter's cumulative buckets). [Counters]
// is one command's calls, time, rejected and failed calls and its Hist.
// [ErrorStats] counts error replies by their first word (INFO
// errorstats). [SlowLog] keeps the newest slow commands as SLOWLOG GET
// lists them; [SlowArgs] copies what Redis keeps of a command's
// arguments. [LatencyMonitor] keeps, per event, one sample a second of
// the slow calls (LATENCY LATEST, HISTORY, RESET).
//
// Times come from the caller: an entry's or a sample's Unix time is
// given, never read from the clock here.
//
// # Caveats
//
// Hist, Counters, ErrorStats, SlowLog and LatencyMonitor are safe for
// concurrent use, and their zero values are ready. Hist and Counters
// take no lock (an atomic add per record); a Snapshot is a copy of
// counts read one by one while others may add, so its total is that of
// its own counts, not of one instant. ErrorStats,
// SlowLog and LatencyMonitor take a mutex per call, which only error
// replies and slow commands pay.
package obs
