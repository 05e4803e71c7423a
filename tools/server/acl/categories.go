package acl

import (
	"fmt"
	"slices"
	"strings"
)

// ACL categories: Redis 7.0's, in its order (ACL CAT lists them so, and
// COMMAND INFO lists a command's in it), and @bloom for the BF.*
// commands. Categories no command here belongs to are kept so that
// rules and ACL files written for Redis (+@string, -@list) load.

// catBits is a set of ACL categories, one bit each.
type catBits uint32

// categories names every category; a category's bit is 1 << index.
var categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting", "bloom",
}

// Categories returns the name of every ACL category (no "@"), in Redis's
// order: ACL CAT's reply.
func Categories() []string { return slices.Clone(categories) }

// categoryBit returns the bit of the category name (no "@"), in any
// case.
func categoryBit(name string) (catBits, bool) {
	for i, c := range categories {
		if strings.EqualFold(c, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// Bits of the categories the flags imply.
var (
	catRead, _      = categoryBit("read")
	catWrite, _     = categoryBit("write")
	catAdmin, _     = categoryBit("admin")
	catDangerous, _ = categoryBit("dangerous")
	catFast, _      = categoryBit("fast")
	catSlow, _      = categoryBit("slow")
)

// categoriesOf returns cmd's categories: those it names and those Redis
// derives from its flags (setImplicitACLCategories in Redis 7.0's
// server.c): write gives @write, readonly @read, admin @admin and
// @dangerous, fast @fast, and a command that is not @fast is @slow.
func categoriesOf(cmd *Command) (catBits, error) {
	var b catBits
	for _, c := range cmd.Categories {
		bit, ok := categoryBit(strings.TrimPrefix(c, "@"))
		if !ok {
			return 0, fmt.Errorf("%w: %s: unknown category %s", ErrTable, cmd.Name, c)
		}
		b |= bit
	}
	for _, f := range cmd.Flags {
		switch f {
		case "write":
			b |= catWrite
		case "readonly":
			b |= catRead
		case "admin":
			b |= catAdmin | catDangerous
		case "fast":
			b |= catFast
		}
	}
	if b&catFast == 0 {
		b |= catSlow
	}
	return b, nil
}

// names returns the categories of b, in Redis's order.
func (b catBits) names() []string {
	var out []string
	for i, c := range categories {
		if b&(1<<i) != 0 {
			out = append(out, c)
		}
	}
	return out
}
