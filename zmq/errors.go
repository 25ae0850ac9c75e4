package zmq

import "errors"

// Error kinds returned by this package; test with errors.Is.
var (
	// ErrBadAddress marks a publisher address that is not a usable tcp://
	// or ipc:// endpoint. The error text names the offending option.
	ErrBadAddress = errors.New("zmq: bad publisher address")

	// ErrBadHWM marks a negative high-water mark.
	ErrBadHWM = errors.New("zmq: bad high-water mark")

	// ErrBind marks a publisher address that could not be bound.
	ErrBind = errors.New("zmq: cannot bind publisher")

	// ErrProtocol marks a subscriber that broke the ZMTP protocol or its
	// limits; the connection is dropped.
	ErrProtocol = errors.New("zmq: subscriber protocol violation")
)
