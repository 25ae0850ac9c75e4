package rpc

import (
	"errors"
	"fmt"
)

// ErrorCode is a JSON-RPC error code as bitcoind uses them (rpc/protocol.h).
type ErrorCode int

// Error codes. The negative 32xxx codes are JSON-RPC 2.0's; the rest are
// bitcoind's application codes.
const (
	ErrInvalidRequest            ErrorCode = -32600
	ErrMethodNotFound            ErrorCode = -32601
	ErrInvalidParams             ErrorCode = -32602
	ErrInternal                  ErrorCode = -32603
	ErrParse                     ErrorCode = -32700
	ErrMisc                      ErrorCode = -1
	ErrType                      ErrorCode = -3
	ErrInvalidAddress            ErrorCode = -5 // RPC_INVALID_ADDRESS_OR_KEY
	ErrOutOfMemory               ErrorCode = -7
	ErrInvalidParam              ErrorCode = -8 // RPC_INVALID_PARAMETER
	ErrDatabase                  ErrorCode = -20
	ErrDeserialization           ErrorCode = -22
	ErrVerify                    ErrorCode = -25
	ErrVerifyRejected            ErrorCode = -26
	ErrVerifyExists              ErrorCode = -27 // RPC_VERIFY_ALREADY_IN_UTXO_SET
	ErrInWarmup                  ErrorCode = -28
	ErrMethodDeprecated          ErrorCode = -32
	ErrClientNotConnected        ErrorCode = -9
	ErrClientInInitialDownload   ErrorCode = -10
	ErrClientNodeAlreadyAdded    ErrorCode = -23
	ErrClientNodeNotAdded        ErrorCode = -24
	ErrClientNodeNotConnected    ErrorCode = -29
	ErrClientInvalidIPOrSubnet   ErrorCode = -30
	ErrClientP2PDisabled         ErrorCode = -31
	ErrClientNodeCapacityReached ErrorCode = -34
)

// Error is a JSON-RPC error object. Handlers and backend functions return it
// (possibly wrapped) to choose the code; any other error is reported as
// -1 (RPC_MISC_ERROR) with its text, as bitcoind does for std::exception.
type Error struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	// Cause is the backend error the code and message were chosen for,
	// if any; it is not sent to the client but stays reachable through
	// errors.As and errors.Is (for metrics and logs).
	Cause error `json:"-"`
}

// Error returns the message with its code.
func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Is matches another *Error with the same code, so errors.Is(err,
// &Error{Code: ErrInvalidParam}) tests a code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// WithCause returns a copy of e that records cause.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Cause = cause
	return &c
}

// NewError returns an *Error with the given code and message.
func NewError(code ErrorCode, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Errorf returns an *Error with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sentinel errors backend functions may return (wrapped or not) to get
// bitcoind's code and message for the common cases.
var (
	// ErrBlockNotFound is bitcoind's "Block not found" (-5).
	ErrBlockNotFound = NewError(ErrInvalidAddress, "Block not found")
	// ErrBlockHeightOutOfRange is "Block height out of range" (-8).
	ErrBlockHeightOutOfRange = NewError(ErrInvalidParam, "Block height out of range")
	// ErrTxNotFound is "No such mempool or blockchain transaction" (-5).
	ErrTxNotFound = NewError(ErrInvalidAddress, "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.")
	// ErrNotInMempool is "Transaction not in mempool" (-5).
	ErrNotInMempool = NewError(ErrInvalidAddress, "Transaction not in mempool")
	// ErrMethodUnavailable is "Method not found" (-32601), returned for
	// methods whose backend the daemon did not supply.
	ErrMethodUnavailable = NewError(ErrMethodNotFound, "Method not found")
)

// toRPCError converts any error to the object sent to the client.
func toRPCError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: ErrMisc, Message: err.Error()}
}
