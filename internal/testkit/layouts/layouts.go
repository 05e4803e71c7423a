// Package layouts lists the formats, layouts and hash schemes that the
// library's table tests of robustness (multi-process, crash, locks,
// faults, durability, integrity, hostile input, full disks) run over, and
// names them for subtests. Package mmapbloom's own tests and the
// black-box ones (through internal/testkit/filtertest) turn the same list
// into mmapbloom.CreateOptions, so a layout added here is tested by both.
package layouts

import (
	"strings"

	"github.com/mmapbloom/mmapbloom/format"
)

// Layout is the part of mmapbloom.CreateOptions that picks a file's
// format, layout and hash scheme; the zero value is Create's default
// (blocked512 for p >= MinBlockedP, else classic; classic for
// CreateWithMK).
type Layout struct {
	Format format.Version
	Layout format.Layout
	Scheme format.Scheme
}

// All lists the layouts the table tests run over, the default first. Add
// new layouts here.
var All = []Layout{
	{},
	{Layout: format.LayoutClassic},
	{Scheme: format.SchemeMurmurSeeds},
	{Format: format.V1},
}

// Name names l for a subtest: "default" for the zero value, else the
// names of its non-zero fields joined by "-" ("classic", "v1.1").
func (l Layout) Name() string {
	var parts []string
	if l.Format != 0 {
		parts = append(parts, l.Format.String())
	}
	if l.Layout != 0 {
		parts = append(parts, l.Layout.String())
	}
	if l.Scheme != 0 {
		parts = append(parts, l.Scheme.String())
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, "-")
}
