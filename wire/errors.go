package wire

import "fmt"

// ErrorKind classifies decoding and encoding failures so callers can test
// them with errors.Is, for example to score a misbehaving peer.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Kinds of wire errors.
const (
	// ErrTruncated means the input ended in the middle of an object.
	ErrTruncated = ErrorKind("unexpected end of data")
	// ErrNonCanonical means a var-int used more bytes than needed.
	ErrNonCanonical = ErrorKind("non-canonical var-int")
	// ErrLimitExceeded means a count or length is above the protocol's limit.
	ErrLimitExceeded = ErrorKind("limit exceeded")
	// ErrMalformed means the bytes do not follow the encoding rules.
	ErrMalformed = ErrorKind("malformed data")
	// ErrTrailingData means a message payload had bytes after its content.
	ErrTrailingData = ErrorKind("trailing data")
	// ErrBadChecksum means a message's checksum did not match its payload.
	ErrBadChecksum = ErrorKind("bad checksum")
	// ErrWrongNetwork means a message header carried another network's magic.
	ErrWrongNetwork = ErrorKind("wrong network magic")
	// ErrUnknownCommand means a message header named a command we do not know.
	ErrUnknownCommand = ErrorKind("unknown command")
)

// MessageError describes a wire failure with its kind and the place it
// happened. errors.Is(err, ErrLimitExceeded) and friends match on Kind.
type MessageError struct {
	Kind        ErrorKind
	Description string
}

// Error returns a one-line description.
func (e *MessageError) Error() string {
	if e.Description == "" {
		return string(e.Kind)
	}
	return string(e.Kind) + ": " + e.Description
}

// Unwrap exposes the kind to errors.Is.
func (e *MessageError) Unwrap() error { return e.Kind }

func messageError(kind ErrorKind, format string, args ...any) error {
	return &MessageError{Kind: kind, Description: fmt.Sprintf(format, args...)}
}

// limitError names the limit that was broken, its value and the maximum.
func limitError(name string, got, max uint64) error {
	return &MessageError{Kind: ErrLimitExceeded,
		Description: fmt.Sprintf("%s %d exceeds maximum %d", name, got, max)}
}
