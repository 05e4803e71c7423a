package natstest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmapbloom/mmapbloom/internal/testkit"
	"github.com/mmapbloom/mmapbloom/tools/replication"
)

// ServerBinary returns the path of the nats-server program. When it is
// missing the test fails under CI=true (CI installs Debian's
// nats-server) and is skipped with a message elsewhere.
func ServerBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("natstest: nats-server not found (apt-get install nats-server): %v", err)
	}
	t.Skipf("natstest: nats-server not found (apt-get install nats-server): %v", err)
	return ""
}

// RequireEmbedded skips a test that runs an embedded nats-server on a
// 32-bit platform, where replication.StartEmbedded refuses
// (replication.Embedded32Bit; TestStartEmbedded32Bit checks the refusal).
func RequireEmbedded(t testing.TB) {
	t.Helper()
	if replication.Embedded32Bit {
		t.Skip("natstest: no embedded nats-server on a 32-bit platform (replication.Embedded32Bit)")
	}
}

// Processes is a NATS cluster of nats-server processes.
type Processes struct {
	bin   string
	confs []string
	Ports []int // client ports, on 127.0.0.1
	Cmds  []*exec.Cmd
	ended []chan struct{} // ended[i] is closed once Cmds[i] exited (its Wait returned)
}

// StartProcesses starts an n-process JetStream cluster named "P"
// (servers "p1".."pN") of the nats-server program, waits until every
// server accepts clients, and kills the processes (SIGCONT first, for a
// stopped one) at the test's end.
func StartProcesses(t testing.TB, n int) *Processes {
	t.Helper()
	return StartProcessesWith(t, n, "")
}

// StartProcessesWith is StartProcesses whose servers' configs end with
// extra, nats-server configuration of the top level (a tls block, an
// authorization block).
func StartProcessesWith(t testing.TB, n int, extra string) *Processes {
	t.Helper()
	p := &Processes{bin: ServerBinary(t)}
	ports := make([]int, 2*n)
	for i := range ports {
		addr := testkit.FreeAddr(t)
		port, err := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = port
	}
	p.Ports = ports[:n]
	var routes []string
	for _, rp := range ports[n:] {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", rp))
	}
	dir := t.TempDir()
	for i := range n {
		conf := filepath.Join(dir, fmt.Sprintf("p%d.conf", i+1))
		text := fmt.Sprintf("server_name: p%d\nlisten: 127.0.0.1:%d\njetstream { store_dir: %q }\n"+
			"cluster { name: P\n listen: 127.0.0.1:%d\n routes: [%s] }\n%s\n",
			i+1, p.Ports[i], filepath.Join(dir, fmt.Sprintf("p%d", i+1)), ports[n+i], strings.Join(routes, ", "), extra)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		p.confs = append(p.confs, conf)
		p.Cmds = append(p.Cmds, nil)
		p.ended = append(p.ended, nil)
	}
	t.Cleanup(p.killAll)
	for i := range n {
		p.Start(t, i)
	}
	return p
}

// Start starts process i (again) and waits until it accepts clients.
// A process that exits meanwhile is started again: its ports were taken
// from the kernel's ephemeral range, where, once the process that held
// them died, another process's connection may hold one for a moment
// (seen: a restart after SIGKILL in the race run of every package).
func (p *Processes) Start(t testing.TB, i int) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", p.Ports[i])
	deadline := time.Now().Add(time.Minute)
	for p.spawn(t, i); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("natstest: nats-server %d not accepting on %s in a minute", i+1, addr)
		}
		select {
		case <-p.ended[i]:
			p.spawn(t, i)
		default:
		}
	}
}

// spawn starts process i, ended[i] closed when it exits.
func (p *Processes) spawn(t testing.TB, i int) {
	cmd := testkit.Process(t, p.bin, "-c", p.confs[i])
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatalf("natstest: %s: %v", p.bin, err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	p.Cmds[i], p.ended[i] = cmd, ended
}

// URL returns process i's client URL.
func (p *Processes) URL(i int) string { return fmt.Sprintf("nats://127.0.0.1:%d", p.Ports[i]) }

// URLs returns every client URL, comma-separated.
func (p *Processes) URLs() string {
	var urls []string
	for i := range p.Ports {
		urls = append(urls, p.URL(i))
	}
	return strings.Join(urls, ",")
}

// Signal sends sig (SIGSTOP, SIGCONT, SIGKILL) to process i; after
// SIGKILL it waits for the process's end.
func (p *Processes) Signal(t testing.TB, i int, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmds[i].Process.Signal(sig); err != nil {
		t.Fatalf("natstest: signal %v to nats-server %d: %v", sig, i+1, err)
	}
	if sig == syscall.SIGKILL {
		<-p.ended[i]
	}
}

func (p *Processes) killAll() {
	for i, c := range p.Cmds {
		if c == nil {
			continue
		}
		_ = c.Process.Signal(syscall.SIGCONT)
		_ = c.Process.Kill()
		<-p.ended[i]
	}
}
