package server

import (
	"strings"
	"time"

	"github.com/mmapbloom/mmapbloom/mmapbloom"
	"github.com/mmapbloom/mmapbloom/tools/server/store"
)

// MBF.RESERVEWINDOW key error_rate capacity WINDOW seconds KEEP n [REFRESH] [EXPANSION e]
// (an extension, prefixed MBF so that it never meets RedisBloom's
// grammar) creates a windowed set: time is cut into windows of the given
// seconds, the set keeps the n last, each window's layer holds capacity
// keys at error_rate/n, and a key is forgotten between (n-1) and n
// windows after it was added (after it was last seen with REFRESH, which
// makes a BF.ADD hit re-add the key to the current window). The BF
// commands then work on the key; the first writer after a window's end
// rotates, as the library does. With EXPANSION, a window that receives
// more than capacity keys grows like a scalable set (layers of e times the
// keys, tighter error rates) instead of answering above error_rate.
// BF.INFO reports the live layers' capacities and sizes, "Number of
// filters" the live layers, and "Expansion rate" e (0 without it: windows
// do not grow).

// maxKeep bounds KEEP (one layer file per window kept).
const maxKeep = mmapbloom.MaxKeep

func mbfReserveWindow(c *client, args [][]byte) {
	spec, msg := windowSpec(args)
	if msg != "" {
		c.w.WriteError(msg)
		return
	}
	if err := c.s.store.Reserve(args[1], spec); err != nil {
		c.replyErr(err)
		return
	}
	c.w.WriteString("OK")
}

// windowSpec reads MBF.RESERVEWINDOW's arguments into a store.Spec, or
// returns an error reply (BF.RESERVE's texts for the rate and capacity).
func windowSpec(args [][]byte) (store.Spec, string) {
	var spec store.Spec
	p, ok := parseFloat(args[2])
	if !ok {
		return spec, "ERR bad error rate"
	}
	if p <= 0 || p >= 1 {
		return spec, "ERR error rate must be in the range (0.000000, 1.000000)"
	}
	n, ok := parseInt(args[3])
	if !ok {
		return spec, "ERR bad capacity"
	}
	if n < 1 || n > maxCapacity {
		return spec, "ERR capacity must be in the range [1, 1073741824]"
	}
	spec.N, spec.P = uint64(n), min(p, maxErrorRate)
	for i := 4; i < len(args); i++ {
		switch opt := strings.ToUpper(string(args[i])); {
		case opt == "REFRESH":
			spec.Refresh = true
		case opt == "EXPANSION" && i+1 < len(args):
			v, ok := parseInt(args[i+1])
			i++
			switch {
			case !ok:
				return spec, "ERR bad expansion"
			case v < 1 || v > maxExpansion:
				return spec, "ERR expansion must be in the range [1, 32768]"
			}
			spec.Expansion = uint32(v)
		case (opt == "WINDOW" || opt == "KEEP") && i+1 < len(args):
			v, ok := parseInt(args[i+1])
			i++
			switch {
			case !ok || v < 1:
				return spec, "ERR bad " + strings.ToLower(opt)
			case opt == "WINDOW" && v <= int64(maxWindow/time.Second):
				spec.Window = time.Duration(v) * time.Second
			case opt == "KEEP" && v <= maxKeep:
				spec.Keep = int(v)
			default:
				return spec, "ERR " + strings.ToLower(opt) + " out of range"
			}
		default:
			return spec, msgSyntax
		}
	}
	if spec.Window == 0 || spec.Keep == 0 {
		return spec, "ERR WINDOW and KEEP are required"
	}
	if spec.Window > mmapbloom.MaxWindow(spec.Keep) {
		return spec, "ERR window out of range"
	}
	return spec, ""
}

// maxWindow bounds WINDOW (about 100 years).
const maxWindow = 100 * 365 * 24 * time.Hour
