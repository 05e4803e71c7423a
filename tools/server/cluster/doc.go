// Package cluster holds what a Redis Cluster node computes without a
// network: the hash slot of a key (CRC16-XMODEM of the key or of its
// {hash tag}, modulo 16384, Redis's rule) and the static cluster map
// `mmapbloom serve --cluster-config` reads (which node owns which slots).
package cluster
