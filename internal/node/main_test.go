package node

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	// In-process tests log through the package loggers; keep go test
	// output readable.
	setLogLevels(debugLevels{global: btclog.LevelOff})
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// daemonBinary builds the btcd binary once per test run.
func daemonBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the daemon; skipped with -short")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "btcd-test-bin")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "btcd")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/btcnode/btcd")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// daemonCmd runs the binary with HOME pointed at a temp dir, so a real
// ~/.btcd/btcd.conf cannot leak into the test.
func daemonCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(daemonBinary(t), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "LOCALAPPDATA="+home, "GOGC=", "GOMEMLIMIT=")
	return cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitForLine reads lines from r until one contains want or the timeout
// passes. Lines are also collected for failure messages.
func waitForLine(t *testing.T, lines <-chan string, want string, timeout time.Duration, seen *[]string) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("daemon output ended before %q; output:\n%s", want, strings.Join(*seen, "\n"))
			}
			*seen = append(*seen, line)
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within %v; output:\n%s", want, timeout, strings.Join(*seen, "\n"))
		}
	}
}

func TestDaemonStartsAndStopsOnSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGINT delivery to a child is unix-only")
	}
	dir := t.TempDir()
	port, profPort := freePort(t), freePort(t)
	memprof := filepath.Join(dir, "mem.prof")
	cpuprof := filepath.Join(dir, "cpu.prof")
	cmd := daemonCmd(t, "--regtest",
		"--datadir="+filepath.Join(dir, "data"),
		"--logdir="+filepath.Join(dir, "logs"),
		fmt.Sprintf("--listen=127.0.0.1:%d", port),
		fmt.Sprintf("--profile=%d", profPort),
		"--memprofile="+memprof,
		"--cpuprofile="+cpuprof,
		"--debuglevel=info,SRVR=debug",
	)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	defer cmd.Process.Kill()

	var seen []string
	listenLine := fmt.Sprintf("Bound to 127.0.0.1:%d", port)
	waitForLine(t, lines, listenLine, 20*time.Second, &seen)
	for _, want := range []string{"Network: regtest", "Using data directory " + filepath.Join(dir, "data", "regtest")} {
		if !strings.Contains(strings.Join(seen, "\n"), want) {
			t.Errorf("start-up log lacks %q", want)
		}
	}

	// The listener accepts and holds a connection.
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		t.Fatalf("dial P2P port: %v", err)
	}
	defer conn.Close()
	waitForLine(t, lines, "Inbound connection from", 10*time.Second, &seen)

	// The profile server answers on its own mux.
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/cmdline", profPort))
	if err != nil {
		t.Fatalf("profile server: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("--regtest")) {
		t.Errorf("pprof cmdline: %d %q", resp.StatusCode, body)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Drain output so the daemon never blocks on a full pipe.
	go func() {
		for line := range lines {
			_ = line
		}
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("daemon exit: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("daemon did not exit within 5s of SIGINT")
	}

	// The held connection was closed by the shutdown.
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isConnReset(err) {
		t.Errorf("held connection after shutdown: %v", err)
	}

	for _, p := range []string{memprof, cpuprof} {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Errorf("profile %s missing or empty: %v", p, err)
		}
	}
	logFile := filepath.Join(dir, "logs", "regtest", "btcd.log")
	logged, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	for _, want := range []string{listenLine, "init message: Done loading", "Shutdown complete",
		"Go memory limit follows the UTXO cache"} {
		if !bytes.Contains(logged, []byte(want)) {
			t.Errorf("log file lacks %q", want)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("unexpected stderr: %s", stderr.String())
	}
}

func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}

func TestDaemonRejectsBadOptions(t *testing.T) {
	tests := []struct {
		args   []string
		option string
	}{
		{[]string{"--regtest", "--testnet"}, "--testnet"},
		{[]string{"--bogusoption"}, "--bogusoption"},
		{[]string{"--debuglevel=chatty"}, "--debuglevel"},
		{[]string{"--profile=nope"}, "--profile"},
		{[]string{"--testactivationheight=segwit@1"}, "--testactivationheight"},
	}
	for _, tc := range tests {
		cmd := daemonCmd(t, tc.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
			t.Errorf("%q: want exit code 1, got %v", tc.args, err)
		}
		msg := stderr.String()
		if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
			t.Errorf("%q: stderr is not one line: %q", tc.args, msg)
		}
		if !strings.HasPrefix(msg, "btcd: ") || !strings.Contains(msg, tc.option) {
			t.Errorf("%q: stderr %q does not name %s", tc.args, msg, tc.option)
		}
		if stdout.Len() != 0 {
			t.Errorf("%q: unexpected stdout %q", tc.args, stdout.String())
		}
	}
}

func TestDaemonHelpAndVersion(t *testing.T) {
	out, err := daemonCmd(t, "--help").Output()
	if err != nil {
		t.Fatalf("--help: %v", err)
	}
	help := string(out)
	for _, want := range []string{"Usage:", "--regtest", "--maxpeers", "--debuglevel", "--testactivationheight", "--memlimit"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	out, err = daemonCmd(t, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "btcd version "+version()) {
		t.Errorf("--version: %q %v", out, err)
	}
	out, err = daemonCmd(t, "--debuglevel=show").Output()
	if err != nil || !strings.Contains(string(out), "PEER") {
		t.Errorf("--debuglevel=show: %q %v", out, err)
	}
}

// TestDaemonPortInUse checks that a P2P port already taken fails start-up
// with exit code 1 instead of running without a listener.
func TestDaemonPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	cmd := daemonCmd(t, "--regtest", "--datadir="+dir, "--logdir="+dir, "--listen="+l.Addr().String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
			t.Fatalf("want exit code 1, got %v; output:\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "Unable to start server") {
			t.Errorf("output lacks the reason:\n%s", out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("daemon did not exit")
	}
}
