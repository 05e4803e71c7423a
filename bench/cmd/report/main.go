// Command report turns the raw output of bench/run.sh (go test -bench
// output and procbench lines) into Markdown tables, whose figures
// BENCHMARKS.md's library section copies. It replaces the text between
// the markers
//
//	<!-- BEGIN GENERATED -->
//	<!-- END GENERATED -->
//
// and leaves the rest of the file as it is. run.sh gives it, as REPORT,
// a new file under out/ holding only the two markers:
//
//	report -md REPORT -machine out/machine.txt \
//	    -commands out/commands.txt -notes targets-notes.txt out/*.bench
//
// A later line of the same benchmark replaces an earlier one. The reason
// column of a missed target comes from -notes, lines of "id: text".
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mmapbloom/mmapbloom/bench/internal/result"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// run reads the inputs named by args and rewrites the markdown file.
func run(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	md := fs.String("md", "out/report.md", "markdown file to update")
	machine := fs.String("machine", "", "file describing the machine (optional)")
	commands := fs.String("commands", "", "file of the commands run (optional)")
	notes := fs.String("notes", "targets-notes.txt", "reasons for missed targets, lines of id: text")
	label := fs.String("label", "", "a line shown above the tables")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rs, err := result.ReadFiles(fs.Args())
	if err != nil {
		return err
	}
	reasons, err := readNotes(*notes)
	if err != nil {
		return err
	}
	var b strings.Builder
	if *label != "" {
		fmt.Fprintf(&b, "**%s**\n\n", *label)
	}
	if err := writeTextFile(&b, "Machine", "text", *machine); err != nil {
		return err
	}
	if err := writeTextFile(&b, "Commands", "sh", *commands); err != nil {
		return err
	}
	writeTargets(&b, rs, reasons)
	writePeers(&b, rs)
	writeProcess(&b, rs)
	writeMemory(&b, rs)
	return splice(*md, b.String())
}
