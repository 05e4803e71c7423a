package server

import (
	"errors"

	"github.com/mmapbloom/mmapbloom/tools/server/acl"
	"github.com/mmapbloom/mmapbloom/tools/server/keyname"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// Errors returned by this package's functions (the replies to clients are
// Redis error strings, see conn_replies.go).
var (
	// ErrBadKey is returned for a key that cannot name a file: longer than
	// keyname.MaxKeyBytes, or longer than keyname.MaxStemBytes once
	// escaped. It is keyname.ErrBadKey.
	ErrBadKey = keyname.ErrBadKey

	// ErrACLFile wraps every error of an ACL file (Config.ACLFile) New
	// returns: Redis's texts, each ending ". ", or the file's read error.
	// It is acl.ErrFile.
	ErrACLFile = acl.ErrFile

	// ErrProtectedMode is returned by New for a non-loopback address
	// without a password, unless Config.AllowUnprotected is set.
	ErrProtectedMode = errors.New("refusing to listen on a non-loopback address without a password")

	// ErrRequestTooLarge is returned by a connection's reader when one
	// request (one command, or the unparsed tail of a pipeline) exceeds
	// Config.MaxRequest bytes; the connection is then closed.
	ErrRequestTooLarge = errors.New("request too large")

	// ErrNotFound is returned for a key that has no file. It is
	// store.ErrNotFound.
	ErrNotFound = store.ErrNotFound

	// ErrKeyExists is returned when a key to create already has a file.
	// It is store.ErrKeyExists.
	ErrKeyExists = store.ErrKeyExists

	// ErrNotCluster is returned by Reload and the cluster commands of a
	// server started without a cluster config (or given only one of the
	// config and the node id).
	ErrNotCluster = errors.New("cluster support disabled")

	// ErrBadConfig is returned by New for a Config field out of range
	// (a default error rate outside (0, 1), a default expansion above
	// RedisBloom's 32768).
	ErrBadConfig = errors.New("bad server configuration")

	// ErrFoldConfig is returned by New for a bad folding configuration
	// (Config.FoldHashtags, FoldBuckets), or one other than the data
	// directory was served with.
	ErrFoldConfig = errors.New("bad folding configuration")

	// errMergeSet refuses MBF.MERGE of a scaling or windowed set.
	errMergeSet = errors.New("MBF.MERGE merges fixed (NONSCALING) filters of one shape: this key is a scaling or windowed set")

	// errFoldFixed refuses a fixed (NONSCALING) filter for a folded key.
	errFoldFixed = errors.New("a folded key's filter is shared by every key of its bucket and must scale: NONSCALING or EXPANSION 0 is refused under --fold-hashtags")

	// errFoldReserve refuses BF.RESERVE of a folded key whose bucket's
	// filter cannot keep the error rate asked.
	errFoldReserve = errors.New("BF.RESERVE of a folded key: its bucket's filter exists and does not keep the error rate asked (keys with a {hash tag} share one filter per name and bucket of slots under --fold-hashtags)")

	// errFoldMigrate refuses an MBF.MIGRATE that would copy a bucket of
	// folded keys over the target's own, or between directories folded
	// differently.
	errFoldMigrate = errors.New("MBF.MIGRATE with folded keys")
)
