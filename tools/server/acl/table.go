package acl

import (
	"fmt"
	"slices"
	"strings"
)

// Command is a command as ACL rules see it. The server's command table
// gives one for each command and each subcommand; its id is its index in
// the slice given to NewTable.
type Command struct {
	// Name is the name in lower case, as Redis reports it; a
	// subcommand's is "container|sub", its container's name first.
	Name string
	// Flags are Redis's COMMAND flags; write, readonly, admin and fast
	// imply categories (see Categories).
	Flags []string
	// Categories are the ACL categories beyond those the flags imply,
	// each "@name".
	Categories []string
	// First, Last and Step are the key positions, COMMAND's: First 0
	// for a command without keys; Last negative counts from the end (-1:
	// the last argument).
	First, Last, Step int
	// NoAuth marks a command that runs before AUTH (AUTH, HELLO, QUIT,
	// RESET): every user may run it.
	NoAuth bool
}

// Table is the commands rules name and the check decides on, by id; it
// is not changed once made, and is safe for concurrent use.
type Table struct {
	cmds   []Command
	cats   []catBits      // by id: every category of the command
	subs   [][]int        // by id: a container's subcommands
	byName map[string]int // full names
}

// NewTable returns the table of cmds, a command's id its index in cmds.
// It returns an error wrapping ErrTable for an unknown category, a
// subcommand listed before its container or without one, a name given
// twice, or a key position out of range.
func NewTable(cmds []Command) (*Table, error) {
	t := &Table{cmds: slices.Clone(cmds), cats: make([]catBits, len(cmds)), subs: make([][]int, len(cmds)),
		byName: make(map[string]int, len(cmds))}
	for id := range t.cmds {
		if err := t.add(id, &t.cmds[id]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// add indexes cmd, whose id is id.
func (t *Table) add(id int, cmd *Command) error {
	if _, dup := t.byName[cmd.Name]; dup {
		return fmt.Errorf("%w: %s listed twice", ErrTable, cmd.Name)
	}
	if cmd.First < 0 || cmd.First > maxFirst || cmd.First > 0 && cmd.Step < 1 {
		return fmt.Errorf("%w: %s: key positions %d %d %d", ErrTable, cmd.Name, cmd.First, cmd.Last, cmd.Step)
	}
	cats, err := categoriesOf(cmd)
	if err != nil {
		return err
	}
	if container, _, ok := strings.Cut(cmd.Name, "|"); ok {
		parent, ok := t.byName[container]
		if !ok {
			return fmt.Errorf("%w: %s before its container", ErrTable, cmd.Name)
		}
		t.subs[parent] = append(t.subs[parent], id)
	}
	t.cats[id], t.byName[cmd.Name] = cats, id
	return nil
}

// Lookup returns the id of the command a rule names (+name, -name), in
// any case: a command, or a subcommand by its full name
// "container|sub". A name with a '|' is lowered as strings.ToLower
// lowers it, one without in ASCII only (as the server looks up a
// command's name).
func (t *Table) Lookup(name string) (int, bool) {
	if strings.Contains(name, "|") {
		name = strings.ToLower(name)
	} else {
		name = asciiLower(name)
	}
	id, ok := t.byName[name]
	return id, ok
}

// asciiLower returns s with its ASCII upper-case letters lowered.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// CategoriesOf returns every category of the command id (no "@"), in
// Redis's order: those it names and those its flags imply (COMMAND
// INFO's).
func (t *Table) CategoriesOf(id int) []string { return t.cats[id].names() }

// CategoryCommands returns the names of the commands of the category
// name (no "@"; any case), in id order, and whether it exists: ACL CAT
// category's reply.
func (t *Table) CategoryCommands(name string) ([]string, bool) {
	bit, ok := categoryBit(name)
	if !ok {
		return nil, false
	}
	var names []string
	for id, cmd := range t.cmds {
		if t.cats[id]&bit != 0 {
			names = append(names, cmd.Name)
		}
	}
	return names, true
}

// LastKey returns the index of the last key of a call of n arguments
// (the command's name included) of a command whose last key position is
// last (negative: from the end): below its first key position when the
// call has no key.
func LastKey(last, n int) int {
	if last < 0 {
		last = n + last
	}
	return min(last, n-1)
}

// words is the length of a cmdBits holding every command of t.
func (t *Table) words() int { return (len(t.cmds) + 63) / 64 }
