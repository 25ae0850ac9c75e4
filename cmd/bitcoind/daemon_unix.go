//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// startBackground starts the background node in a session of its own,
// its standard streams on /dev/null (its log goes to debug.log). With
// wait it returns the read end of the pipe the node reports on.
func startBackground(wait bool) (*os.File, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer devNull.Close()
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devNull, devNull, devNull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	mode := "1"
	var r, w *os.File
	if wait {
		if r, w, err = os.Pipe(); err != nil {
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{w} // descriptor 3 in the child
		mode = "wait"
	}
	cmd.Env = append(os.Environ(), daemonEnv+"="+mode)
	err = cmd.Start()
	if w != nil {
		w.Close()
	}
	if err != nil {
		if r != nil {
			r.Close()
		}
		return nil, err
	}
	cmd.Process.Release()
	return r, nil
}
