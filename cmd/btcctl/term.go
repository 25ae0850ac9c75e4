package main

import "os"

// isTerminal reports whether f is a terminal (a character device), which
// decides -color=auto and the password prompts.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
