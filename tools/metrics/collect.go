package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mmapbloom/mmapbloom/tools/server"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
}

var (
	descCalls    = desc("commands_total", "Commands run, by command (INFO commandstats calls).", "cmd")
	descRejected = desc("commands_rejected_total", "Commands refused before running: arity, authentication, permissions, cluster redirections (rejected_calls).", "cmd")
	descFailed   = desc("commands_failed_total", "Commands that answered an error, or an array holding one (failed_calls).", "cmd")
	descDuration = desc("commands_duration_seconds_total", "Time spent running commands (usec).", "cmd")
	descLatency  = desc("command_latency_seconds", "Latency of commands, as LATENCY HISTOGRAM.", "cmd")
	descErrors   = desc("errors_total", "Error replies by their first word (INFO errorstats).", "err")
	descErrAll   = desc("error_replies_total", "Every error reply (total_error_replies).")
	descProto    = desc("protocol_errors_total", "Requests the parser refused; the connection was closed.")
	descCmdsAll  = desc("commands_processed_total", "Commands received (total_commands_processed).")
	descConns    = desc("connections_received_total", "Connections accepted.")
	descRejConns = desc("rejected_connections_total", "Connections refused at maxclients.")
	descClients  = desc("connected_clients", "Clients connected now.")
	descUptime   = desc("uptime_seconds", "Seconds since the server started.")
	descFilters  = desc("filters", "Keys of the data directory by kind: fixed filter files, scaling or windowed sets.", "kind")
	descOpen     = desc("open_filters", "Filters open (mapped) now.")
	descLayers   = desc("open_layers", "Layers of the open filters (1 per fixed filter).")
	descItems    = desc("open_items", "Items inserted in the open filters (the sum of their BF.CARD).")
	descMapped   = desc("mapped_bytes", "Bytes of the open filters' files mapped.")
	descResident = desc("resident_bytes", "Bytes of the open filters' files in the page cache (mincore; sampled at most every 5 s).")
	descOverCap  = desc("keys_over_capacity", "Open keys whose cached health sample (MBF.HEALTH) has a layer holding more adds than its capacity.")
	descSampled  = desc("health_sampled_keys", "Open keys with a cached health sample (each scrape samples at most 8 more).")
	descFPRRatio = desc("estimated_fpr_ratio", "Open keys with a target p by their estimated false-positive rate over p, from their cached health samples (MBF.HEALTH).")
	descAdded    = desc("keys_added_total", "Keys BF.ADD, BF.MADD and BF.INSERT answered as new.")
	descSyncs    = desc("syncs_total", "Syncs of the open filters that succeeded (appendfsync, SAVE, BGSAVE, WAITAOF 1; INFO rdb_saves).")
	descSyncErrs = desc("sync_errors_total", "Syncs of the open filters that failed (an msync or fsync error).")
	descSyncFail = desc("sync_failing", "1 while the last Sync failed: writes answer MISCONF (rdb_last_bgsave_status:err), else 0.")
	descLastSave = desc("last_save_timestamp_seconds", "Unix time of the last successful Sync, the server's start before one (LASTSAVE).")
	descLag      = desc("replication_lag_seconds", "Age of a replica's data: seconds since its latest successful pull started (-1 before the first).")
	descPulls    = desc("replication_pulls_total", "Pulls of the primary's filters by this replica.")
	descPullErrs = desc("replication_pull_errors_total", "Pulls that failed.")
	descRenewal  = desc("lease_renewal_seconds", "Time of each lease renewal try of this node's keeper (a compare-and-swap in the lease bucket), failed ones included.")
	descRenewErr = desc("lease_renewal_failures_total", "Lease renewal tries that failed (each retried within the lease's validity).")
	descStepDown = desc("lease_stepdowns_total", "Leases this node gave up; its log names the shard and the cause.")
	descHolder   = desc("lease_holder", "1 for the node holding a shard's lease (shard: its config primary's id), 0 for the others, as this node last saw the lease bucket.", "shard", "node")
	descApplied  = desc("log_applied_sequence", "Last sequence of a stream of the log this node applied.", "stream")
	descLogLag   = desc("log_lag_entries", "Entries of a stream of the log this node has not applied yet (its last sequence minus the applied one; absent when the last could not be read).", "stream")
	descStopped  = desc("log_stopped", "1 while this node's follower of a stream is stopped on a message it failed to apply (retried with a pause), else 0.", "stream")
	descApplyErr = desc("log_apply_errors_total", "Failed attempts to apply a message of a stream on this node.", "stream")
	descRewinds  = desc("log_rewinds_total", "Times this node lowered its position in a stream whose log no longer held the message there.", "stream")
	descStalls   = desc("log_stalls_total", "Times this node bypassed a consumer that delivered nothing while the stream's leader held more, applying the missing messages from the leader.", "stream")
	descFSFree   = desc("filesystem_free_bytes", "Bytes available to unprivileged users on the file system of the data directory (dir=data) or of the embedded nats-server's store (dir=log) (statfs).", "dir")
	descFSUsed   = desc("filesystem_used_bytes", "Bytes in use on the file system of the data directory (dir=data) or of the embedded nats-server's store (dir=log) (statfs).", "dir")
)

// descs are every descriptor Collect may use.
var descs = []*prometheus.Desc{descCalls, descRejected, descFailed, descDuration, descLatency, descErrors, descErrAll,
	descProto, descCmdsAll, descConns, descRejConns, descClients, descUptime, descFilters, descOpen, descLayers,
	descItems, descMapped, descResident, descOverCap, descSampled, descFPRRatio, descAdded, descSyncs, descSyncErrs, descSyncFail, descLastSave, descLag, descPulls, descPullErrs,
	descRenewal, descRenewErr, descStepDown, descHolder, descApplied, descLogLag, descStopped, descApplyErr, descRewinds, descStalls, descFSFree, descFSUsed}

func counter(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func collectCommands(ch chan<- prometheus.Metric, st server.Stats) {
	for _, c := range st.Commands {
		ch <- counter(descCalls, float64(c.Calls), c.Name)
		ch <- counter(descRejected, float64(c.Rejected), c.Name)
		ch <- counter(descFailed, float64(c.Failed), c.Name)
		ch <- counter(descDuration, c.Seconds, c.Name)
		buckets := make(map[float64]uint64, len(st.LatencyBoundsSeconds))
		for i, b := range st.LatencyBoundsSeconds {
			buckets[b] = c.LatencyCounts[i]
		}
		ch <- prometheus.MustNewConstHistogram(descLatency, c.LatencyCount, c.LatencySumSeconds, buckets, c.Name)
	}
}

func collectErrors(ch chan<- prometheus.Metric, st server.Stats) {
	for code, n := range st.Errors {
		ch <- counter(descErrors, float64(n), code)
	}
	ch <- counter(descErrAll, float64(st.ErrorReplies))
	ch <- counter(descProto, float64(st.ProtocolErrors))
}

func collectServer(ch chan<- prometheus.Metric, st server.Stats) {
	ch <- counter(descCmdsAll, float64(st.CommandsProcessed))
	ch <- counter(descConns, float64(st.ConnectionsReceived))
	ch <- counter(descRejConns, float64(st.RejectedConnections))
	ch <- gauge(descClients, float64(st.ConnectedClients))
	ch <- gauge(descUptime, st.UptimeSeconds)
	ch <- counter(descSyncs, float64(st.Syncs))
	ch <- counter(descSyncErrs, float64(st.SyncErrors))
	ch <- gauge(descSyncFail, boolValue(st.SyncFailing))
	ch <- gauge(descLastSave, st.LastSaveUnix)
}

// boolValue is 1 for true, else 0.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func collectFilters(ch chan<- prometheus.Metric, st server.Stats) {
	ch <- gauge(descFilters, float64(st.FixedFilters), "fixed")
	ch <- gauge(descFilters, float64(st.Sets), "set")
	ch <- gauge(descOpen, float64(st.OpenFilters))
	ch <- gauge(descLayers, float64(st.OpenLayers))
	ch <- gauge(descItems, float64(st.OpenItems))
	ch <- gauge(descMapped, float64(st.MappedBytes))
	if st.ResidentBytes >= 0 {
		ch <- gauge(descResident, float64(st.ResidentBytes))
	}
	ch <- counter(descAdded, float64(st.KeysAdded))
	ch <- gauge(descOverCap, float64(st.KeysOverCapacity))
	ch <- gauge(descSampled, float64(st.HealthSampledKeys))
	buckets := make(map[float64]uint64, len(st.FPRRatioBounds))
	for i, b := range st.FPRRatioBounds {
		buckets[b] = st.FPRRatioCounts[i]
	}
	ch <- prometheus.MustNewConstHistogram(descFPRRatio, st.FPRRatioKeys, st.FPRRatioSum, buckets)
}

func collectReplication(ch chan<- prometheus.Metric, st server.Stats) {
	ch <- gauge(descLag, st.ReplicationLag)
	ch <- counter(descPulls, float64(st.Pulls))
	ch <- counter(descPullErrs, float64(st.PullErrors))
}

func collectLeases(ch chan<- prometheus.Metric, st server.Stats) {
	buckets := make(map[float64]uint64, len(st.LeaseRenewalBoundsSeconds))
	for i, b := range st.LeaseRenewalBoundsSeconds {
		buckets[b] = st.LeaseRenewalCounts[i]
	}
	ch <- prometheus.MustNewConstHistogram(descRenewal, st.LeaseRenewalCount, st.LeaseRenewalSumSeconds, buckets)
	ch <- counter(descRenewErr, float64(st.LeaseRenewalFailures))
	ch <- counter(descStepDown, float64(st.LeaseStepDowns))
}

func collectHolders(ch chan<- prometheus.Metric, st server.Stats) {
	for shard, holder := range st.LeaseHolders {
		for _, n := range st.LeaseNodes {
			ch <- gauge(descHolder, boolValue(n == holder), shard, n)
		}
	}
}

func collectLog(ch chan<- prometheus.Metric, st server.Stats) {
	for _, s := range st.Streams {
		ch <- gauge(descApplied, float64(s.Applied), s.Name)
		if s.LastKnown {
			ch <- gauge(descLogLag, float64(s.Last-min(s.Applied, s.Last)), s.Name)
		}
		ch <- gauge(descStopped, boolValue(s.Stopped), s.Name)
		ch <- counter(descApplyErr, float64(s.ApplyErrors), s.Name)
		ch <- counter(descRewinds, float64(s.Rewinds), s.Name)
		ch <- counter(descStalls, float64(s.Stalls), s.Name)
	}
}

func collectFileSystems(ch chan<- prometheus.Metric, st server.Stats) {
	for _, fs := range st.FileSystems {
		ch <- gauge(descFSFree, float64(fs.Free), fs.Dir)
		ch <- gauge(descFSUsed, float64(fs.Used), fs.Dir)
	}
}
