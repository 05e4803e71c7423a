// Package server is the network front of mmapbloom: a RESP2 server that
// speaks RedisBloom's BF.* commands, and the generic commands real clients
// send on connect, over a directory of ordinary filter files.
//
// Every key is a file in the data directory (see Stem), opened lazily
// and closed after an idle time, so that local processes keep opening the
// same files with the library while the server serves them. RESP parsing
// is github.com/tidwall/redcon's Reader and Writer; the connection loop,
// the limits (request size, clients, idle time) and the dispatch are here.
// The differences from RedisBloom are listed in the repository's README
// (serve section), each with its reason.
package server
