package chaincfg

import "fmt"

// ErrorKind identifies a class of chaincfg error. Returned errors wrap one of
// the constants below, so callers test them with errors.Is.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

const (
	// ErrUnknownNetwork is returned when a network name or magic matches
	// none of the known networks.
	ErrUnknownNetwork = ErrorKind("unknown network")

	// ErrNotRegtest is returned when a regtest-only override is applied to
	// another network.
	ErrNotRegtest = ErrorKind("option is only allowed on regtest")

	// ErrInvalidFormat is returned when an override argument is not in the
	// expected shape (for example a -testactivationheight without '@').
	ErrInvalidFormat = ErrorKind("invalid format")

	// ErrInvalidHeight is returned when an activation height is not an
	// integer in [0, 2^31-1).
	ErrInvalidHeight = ErrorKind("invalid height value")

	// ErrUnknownDeployment is returned when an override names a deployment
	// this package does not know.
	ErrUnknownDeployment = ErrorKind("unknown deployment name")

	// ErrInvalidVersionBitsParams is returned for a malformed -vbparams
	// value.
	ErrInvalidVersionBitsParams = ErrorKind("invalid version bits parameters")
)

// errorf returns an error of the given kind with a formatted detail; the
// result matches kind under errors.Is.
func errorf(kind ErrorKind, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
}
