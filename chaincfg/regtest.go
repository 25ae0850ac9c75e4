package chaincfg

import (
	"math"
	"strconv"
	"strings"
)

// parseIntegral parses s as Core's ToIntegral does: an optional '-' and
// decimal digits only (no '+', spaces or prefixes), within bitSize bits.
func parseIntegral(s string, bitSize int) (int64, bool) {
	if s == "" || s[0] == '+' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, bitSize)
	return v, err == nil
}

// SetTestActivationHeight applies one Bitcoin Core -testactivationheight
// value, "name@height", where name is one of bip34, dersig, cltv, csv or
// segwit. It is only allowed on regtest and may be called repeatedly (a later
// value for the same name wins). Like Core it checks the shape first, then
// the height, then the name, and leaves p unchanged on error.
func (p *Params) SetTestActivationHeight(arg string) error {
	if p.Name != regTestName {
		return errorf(ErrNotRegtest, "-testactivationheight=%s on %s", arg, p.Name)
	}
	name, value, ok := strings.Cut(arg, "@")
	if !ok {
		return errorf(ErrInvalidFormat, "%q for -testactivationheight=name@height", arg)
	}
	height, ok := parseIntegral(value, 32)
	if !ok || height < 0 || height >= math.MaxInt32 {
		return errorf(ErrInvalidHeight, "%q for -testactivationheight=name@height", arg)
	}
	h := int32(height)
	switch name {
	case "bip34":
		p.BIP34Height = h
	case "dersig":
		p.BIP66Height = h
	case "cltv":
		p.BIP65Height = h
	case "csv":
		p.CSVHeight = h
	case "segwit":
		p.SegwitHeight = h
	default:
		return errorf(ErrUnknownDeployment, "%q in -testactivationheight=%s", name, arg)
	}
	return nil
}

// SetVersionBitsParams applies one Bitcoin Core -vbparams value,
// "deployment:start:end[:min_activation_height]", to a regtest version-bits
// deployment (testdummy or taproot). Start and end are median times past or
// Core's sentinels (-1 always active, -2 never active). It is only allowed
// on regtest and leaves p unchanged on error.
func (p *Params) SetVersionBitsParams(arg string) error {
	if p.Name != regTestName {
		return errorf(ErrNotRegtest, "-vbparams=%s on %s", arg, p.Name)
	}
	parts := strings.Split(arg, ":")
	if len(parts) < 3 || len(parts) > 4 {
		return errorf(ErrInvalidVersionBitsParams,
			"%q, expecting deployment:start:end[:min_activation_height]", arg)
	}
	start, ok := parseIntegral(parts[1], 64)
	if !ok {
		return errorf(ErrInvalidVersionBitsParams, "invalid start time %q", parts[1])
	}
	timeout, ok := parseIntegral(parts[2], 64)
	if !ok {
		return errorf(ErrInvalidVersionBitsParams, "invalid timeout %q", parts[2])
	}
	var minHeight int64
	if len(parts) == 4 {
		if minHeight, ok = parseIntegral(parts[3], 32); !ok {
			return errorf(ErrInvalidVersionBitsParams, "invalid min_activation_height %q", parts[3])
		}
	}
	for i := range p.Deployments {
		d := &p.Deployments[i]
		if d.Name == parts[0] {
			d.StartTime = start
			d.Timeout = timeout
			d.MinActivationHeight = int32(minHeight)
			return nil
		}
	}
	return errorf(ErrUnknownDeployment, "%q in -vbparams=%s", parts[0], arg)
}
