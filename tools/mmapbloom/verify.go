package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// errCorrupted is returned by verify when the bit array differs from the
// one sealed; it ends the command with exitNoMatch after the report.
var errCorrupted = errors.New("bit array corrupted")

// verifyCmd checks a sealed filter's bit array against its recorded
// checksum (Filter.Verify), or every layer of a sealed set (VerifySet).
type verifyCmd struct {
	File string `arg:"" help:"Sealed filter file or filter set directory (NAME.bfset), opened read-only."`
	JSON bool   `name:"json" help:"Print one JSON object: file, intact, data_crc (a set: file, intact, layers)."`
}

// verifyReport is the output of verify.
type verifyReport struct {
	File    string `json:"file"`
	Intact  bool   `json:"intact"`
	DataCRC uint32 `json:"data_crc"`        // as Seal recorded it
	Error   string `json:"error,omitempty"` // why it is not intact: corruptedReason
}

// corruptedReason says why a bit array is not intact, in the text output
// ("FILE: corrupted (REASON)") and in the JSON one ("error").
const corruptedReason = "the bit array does not match the checksum recorded by seal"

// Run verifies FILE and prints whether it is intact: exit 0 intact, 1
// corrupted, 2 for any other error (not sealed, unreadable, ...).
func (c *verifyCmd) Run(e *env) error {
	if isSet(c.File) {
		return c.runSet(e)
	}
	f, err := mmapbloom.Open(c.File, &mmapbloom.OpenOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer f.Close()
	err = f.Verify()
	if err != nil && !errors.Is(err, mmapbloom.ErrDataChecksum) {
		return err
	}
	r := verifyReport{File: c.File, Intact: err == nil, DataCRC: f.Header().DataCRC}
	if !r.Intact {
		r.Error = corruptedReason
	}
	if c.JSON {
		err = json.NewEncoder(e.stdout).Encode(r)
	} else {
		_, err = fmt.Fprintf(e.stdout, "%s: %s\n", r.File, verifyState(r.Intact))
	}
	if err == nil && !r.Intact {
		err = errCorrupted
	}
	return err
}

// verifyState describes a bit array that matches its seal, or not.
func verifyState(intact bool) string {
	if intact {
		return "intact"
	}
	return "corrupted (" + corruptedReason + ")"
}
