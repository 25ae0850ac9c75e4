package chaingen

import (
	"errors"
	"fmt"
)

// Error kinds returned by the generator; test them with errors.Is.
var (
	// ErrConfig reports an invalid Config (or command-line flag).
	ErrConfig = errors.New("chaingen: invalid configuration")
	// ErrInternal reports a broken invariant of the generator itself, such
	// as a block over the weight limit; it indicates a bug.
	ErrInternal = errors.New("chaingen: internal error")
	// ErrIO reports a failure writing block files.
	ErrIO = errors.New("chaingen: i/o error")
	// ErrBadChain reports that a chain handed to the signature benchmark
	// contains an input it cannot classify or whose signature fails.
	ErrBadChain = errors.New("chaingen: unexpected chain content")
)

// kindError wraps a kind with context, keeping errors.Is working on both
// the kind and an underlying cause.
type kindError struct {
	kind  error
	msg   string
	cause error
}

func (e *kindError) Error() string {
	if e.cause != nil {
		return e.kind.Error() + ": " + e.msg + ": " + e.cause.Error()
	}
	return e.kind.Error() + ": " + e.msg
}

func (e *kindError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

func wrapErr(kind, cause error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}
