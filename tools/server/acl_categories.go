package server

import "strings"

// ACL categories: Redis 7.0's, in its order (ACL CAT lists them so, and
// COMMAND INFO lists a command's in it), and @bloom for the BF.*
// commands. Categories no command here belongs to are kept so that
// rules and ACL files written for Redis (+@string, -@list) load.

// catBits is a set of ACL categories, one bit each.
type catBits uint32

// aclCategories names every category; a category's bit is 1 << index.
var aclCategories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting", "bloom",
}

// categoryBit returns the bit of the category name (no "@"), in any
// case.
func categoryBit(name string) (catBits, bool) {
	for i, c := range aclCategories {
		if strings.EqualFold(c, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// mustCategory is categoryBit for the table's own names.
func mustCategory(name string) catBits {
	bit, ok := categoryBit(name)
	if !ok {
		panic("server: unknown ACL category " + name)
	}
	return bit
}

// categoriesOf returns cmd's categories: those its table entry names and
// those Redis derives from its flags (setImplicitACLCategories in Redis
// 7.0's server.c): write gives @write, readonly @read, admin @admin and
// @dangerous, fast @fast, and a command that is not @fast is @slow.
func categoriesOf(cmd *command) catBits {
	var b catBits
	for _, c := range cmd.acl {
		b |= mustCategory(strings.TrimPrefix(c, "@"))
	}
	for _, f := range cmd.flags {
		switch f {
		case "write":
			b |= mustCategory("write")
		case "readonly":
			b |= mustCategory("read")
		case "admin":
			b |= mustCategory("admin") | mustCategory("dangerous")
		case "fast":
			b |= mustCategory("fast")
		}
	}
	if b&mustCategory("fast") == 0 {
		b |= mustCategory("slow")
	}
	return b
}

// names returns the categories of b, in aclCategories's order.
func (b catBits) names() []string {
	var out []string
	for i, c := range aclCategories {
		if b&(1<<i) != 0 {
			out = append(out, c)
		}
	}
	return out
}

// cmdBits is a set of commands, by command id (their index in
// commandList).
type cmdBits []uint64

// cmdWords is the length of a cmdBits holding every command.
func cmdWords() int { return (len(commandList) + 63) / 64 }

func (b cmdBits) has(id int) bool { return b[id/64]&(1<<(id%64)) != 0 }

func (b cmdBits) set(id int, on bool) {
	if on {
		b[id/64] |= 1 << (id % 64)
	} else {
		b[id/64] &^= 1 << (id % 64)
	}
}

// setAll allows (or denies) every command.
func (b cmdBits) setAll(on bool) {
	for i := range b {
		b[i] = 0
	}
	if on {
		for _, cmd := range commandList {
			b.set(cmd.id, true)
		}
	}
}
