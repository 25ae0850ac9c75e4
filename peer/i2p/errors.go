package i2p

// ErrorKind classifies I2P failures for errors.Is.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Kinds of I2P errors.
const (
	// ErrBridgeUnreachable means no connection to the SAM bridge could be
	// opened.
	ErrBridgeUnreachable = ErrorKind("cannot connect to SAM bridge")
	// ErrProtocol means the bridge sent something that is not a valid
	// SAM reply: garbage, an over-long line, an oversized destination, or
	// it closed the connection mid-exchange.
	ErrProtocol = ErrorKind("SAM protocol error")
	// ErrRefused means the bridge answered with a RESULT other than OK.
	ErrRefused = ErrorKind("SAM bridge refused")
	// ErrInvalidAddress means an address is not a usable .b32.i2p
	// address or destination.
	ErrInvalidAddress = ErrorKind("invalid I2P address")
	// ErrKeyFile means the persistent private key could not be read or
	// written.
	ErrKeyFile = ErrorKind("I2P private key file error")
	// ErrNotPersistent means inbound streams were asked of a transient
	// session, which takes none.
	ErrNotPersistent = ErrorKind("transient I2P session accepts no inbound streams")
	// ErrClosed means the session or listener has been closed.
	ErrClosed = ErrorKind("I2P session closed")
)

// Error is an I2P failure: its text is what the node logs, its Kind what
// callers test with errors.Is.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error // underlying cause, if any
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Is matches the error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

func newErr(kind ErrorKind, err error, msg string) *Error {
	return &Error{Kind: kind, Msg: msg, Err: err}
}
