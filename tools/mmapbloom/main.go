// Command mmapbloom creates, fills, queries and merges memory-mapped Bloom
// filter files. README.md beside this file documents every subcommand,
// its flags, the exit statuses and the fields of info --json.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// Exit statuses, as grep's: a query that found nothing is not an error.
const (
	exitOK      = 0
	exitNoMatch = 1
	exitError   = 2
)

// errNoMatch is returned by test when no input line gave a printed
// answer; it ends the command with exitNoMatch and no message (as
// errCorrupted does verify's).
var errNoMatch = errors.New("no line matched")

// cli is the command line: one field per subcommand.
type cli struct {
	Create createCmd `cmd:"" help:"Create an empty filter file (or filter set NAME.bfset) sized for n keys at false-positive probability p."`
	Add    addCmd    `cmd:"" help:"Add keys, one per line, from key files or stdin, to a filter or set."`
	Test   testCmd   `cmd:"" help:"Print the input lines that may be in the filter or set (like grep)."`
	Dedup  dedupCmd  `cmd:"" help:"Print the input lines not seen before and add them; create FILE if missing."`
	Info   infoCmd   `cmd:"" help:"Print the header fields of a filter, or of each layer of a set; with --stats also the bit-array statistics."`
	Merge  mergeCmd  `cmd:"" help:"OR the bits of each SRC filter into DST."`
	Export exportCmd `cmd:"" help:"Copy a live filter set, at one generation, to a new directory (--seal: sealed, to ship)."`
	Seal   sealCmd   `cmd:"" help:"Record the checksum of the bit array (of each layer of a set) and make it read-only."`
	Verify verifyCmd `cmd:"" help:"Check a sealed filter or set against its checksums: exit 0 intact, 1 corrupted, 2 error."`
	Unseal unsealCmd `cmd:"" help:"Make a sealed filter or set writable again."`
	Clear  clearCmd  `cmd:"" help:"Set every bit and the count to 0."`
	Rotate rotateCmd `cmd:"" help:"Start the current window of a windowed filter set and drop expired windows."`
	GC     gcCmd     `cmd:"" help:"Remove the files a crash left in a filter set directory."`
	Serve  serveCmd  `cmd:"" help:"Serve the filter files of a directory over RESP with RedisBloom's BF.* commands."`
}

// env is what a subcommand's Run gets besides its flags: the streams.
type env struct {
	stdin  io.Reader
	stdout *bufio.Writer
	// rawStdout is stdout's writer, unbuffered: dedup writes each batch's
	// lines with one call, to know which were written before it adds them.
	rawStdout io.Writer
	stderr    io.Writer
}

func main() {
	// A write to a closed pipe then fails with EPIPE instead of killing the
	// process (see exitBrokenPipe): filters are closed as on any error.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args, runs the subcommand and returns the exit status. Any
// error is one line on stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exit := -1
	parser, err := kong.New(&cli{},
		kong.Name("mmapbloom"),
		kong.Description("Memory-mapped persistent Bloom filter files."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exit = code }),
		// A flag's value may start with '-': "-n -5" and "-p -0.01" then
		// reach the value's own check ("expected a valid 64 bit uint",
		// "p must be in (0, 1)") instead of kong's "expected uint value but
		// got "-5" (short flag)".
		kong.WithHyphenPrefixedParameters(true),
	)
	if err != nil {
		return status(stderr, err)
	}
	ctx, err := parser.Parse(args)
	if exit >= 0 { // --help printed the usage
		return exit
	}
	if err != nil {
		return status(stderr, fmt.Errorf("%w (see mmapbloom --help)", err))
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	err = ctx.Run(&env{stdin: stdin, stdout: out, rawStdout: stdout, stderr: stderr})
	return status(stderr, flushOutput(out, err))
}

// status maps err to an exit status, printing it as one line.
func status(stderr io.Writer, err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errNoMatch), errors.Is(err, errCorrupted):
		return exitNoMatch
	case errors.Is(err, syscall.EPIPE):
		return exitBrokenPipe
	}
	code := exitError
	if ie := (*interrupted)(nil); errors.As(err, &ie) {
		code = ie.status()
	}
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(stderr, "mmapbloom: %s\n", strings.TrimPrefix(msg, "mmapbloom: "))
	return code
}

// warnOverCapacity prints a warning when f holds more keys than it was
// sized for.
func warnOverCapacity(f *mmapbloom.Filter, stderr io.Writer) error {
	over, err := f.OverCapacity()
	if err != nil || !over {
		return err
	}
	count, err := f.Count()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "mmapbloom: warning: %s holds %d keys, more than its capacity n = %d: false-positive rate about %.3g now, above p = %g\n",
		f.Path(), count, f.N(), f.ExpectedFPR(count), f.P())
	return err
}
