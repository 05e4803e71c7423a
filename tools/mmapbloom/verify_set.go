package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
)

// setVerifyReport is the output of verify for a filter set.
type setVerifyReport struct {
	File   string              `json:"file"` // the set directory
	Intact bool                `json:"intact"`
	Layers []layerVerifyReport `json:"layers"`
}

// layerVerifyReport is one layer of a setVerifyReport.
type layerVerifyReport struct {
	File    string `json:"file"` // file name in the set directory
	Intact  bool   `json:"intact"`
	DataCRC uint32 `json:"data_crc"`        // as Seal recorded it; 0 when unreadable
	Error   string `json:"error,omitempty"` // why the layer is not intact, as the text output says it
	state   string // the text output's word for it
}

// runSet verifies the set at c.File (mmapbloom.VerifySet) and prints one
// line per layer and one for the set (or the JSON report): exit 0 when
// every layer is intact, 1 when some bit array differs from its seal and
// every layer could be checked, 2 when a layer is missing, unreadable or
// not as the MANIFEST says, or the set is not sealed or not a set.
func (c *verifyCmd) runSet(e *env) error {
	checks, err := mmapbloom.VerifySet(c.File)
	if len(checks) == 0 {
		return err
	}
	r := setVerifyReport{File: c.File, Intact: err == nil}
	var failed []layerVerifyReport
	corrupted := 0
	for _, ch := range checks {
		lr := layerVerifyReport{File: ch.File, Intact: ch.Err == nil, DataCRC: ch.DataCRC, state: verifyState(ch.Err == nil)}
		if ch.Err != nil {
			lr.Error = layerError(c.File, ch)
		}
		if errors.Is(ch.Err, mmapbloom.ErrDataChecksum) {
			corrupted++
		} else if ch.Err != nil {
			failed = append(failed, lr)
			lr.state = "error: " + lr.Error
		}
		r.Layers = append(r.Layers, lr)
	}
	if werr := r.write(e, c.JSON, corrupted, len(failed)); werr != nil {
		return werr
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("verify %s: %d of %d layers could not be verified; %s: %s",
			c.File, len(failed), len(checks), failed[0].File, failed[0].Error)
	case corrupted > 0:
		return errCorrupted
	}
	return nil
}

// write prints the report: JSON, or a line per layer and a summary.
func (r setVerifyReport) write(e *env, asJSON bool, corrupted, failed int) error {
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(r)
	}
	for _, l := range r.Layers {
		fmt.Fprintf(e.stdout, "%s: %s\n", filepath.Join(r.File, l.File), l.state)
	}
	summary := "intact (1 layer)"
	if len(r.Layers) != 1 {
		summary = fmt.Sprintf("intact (%d layers)", len(r.Layers))
	}
	switch {
	case failed > 0:
		summary = fmt.Sprintf("not verified (%d of %d layers missing, unreadable or not as the MANIFEST says; %d corrupted)", failed, len(r.Layers), corrupted)
	case corrupted > 0:
		summary = fmt.Sprintf("corrupted (%d of %d layers)", corrupted, len(r.Layers))
	}
	_, err := fmt.Fprintf(e.stdout, "%s: %s\n", r.File, summary)
	return err
}

// layerError returns why the layer of ch is not intact, as the text
// output says it: corruptedReason, or the cause without the prefixes
// naming the set and the layer (the report names them).
func layerError(dir string, ch mmapbloom.LayerCheck) string {
	if errors.Is(ch.Err, mmapbloom.ErrDataChecksum) {
		return corruptedReason
	}
	msg := errors.Unwrap(ch.Err).Error() // VerifySet wraps each cause once, with the set and layer
	msg = strings.TrimPrefix(msg, "mmapbloom: ")
	return strings.TrimPrefix(msg, filepath.Join(dir, ch.File)+": ")
}
