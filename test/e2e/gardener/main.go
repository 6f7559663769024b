// Command gardener-envtest starts Gardener's own test environment on loopback: etcd and
// kube-apiserver from KUBEBUILDER_ASSETS (test/e2e/build-binaries.sh builds them) and the real
// gardener-apiserver of the pinned Gardener release, in this process, registered as an APIService
// for core.gardener.cloud and Gardener's other groups. It writes an admin kubeconfig, prints one
// JSON line on stdout when everything is ready, and stops everything on SIGTERM or SIGINT.
//
//	KUBEBUILDER_ASSETS=$(test/e2e/build-binaries.sh) gardener-envtest \
//	  --kubeconfig /tmp/admin.kubeconfig --feature-gates VersionClassificationLifecycle=true
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	gardenerenvtest "github.com/gardener/gardener/test/envtest"
)

// ready is the line printed on stdout once gardener-apiserver serves its APIs.
type ready struct {
	Kubeconfig   string            `json:"kubeconfig"`
	Server       string            `json:"server"`
	FeatureGates string            `json:"featureGates"`
	Children     map[string]int    `json:"children"`
	StartSeconds float64           `json:"startSeconds"`
	Versions     map[string]string `json:"versions"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gardener-envtest:", err)
		os.Exit(1)
	}
}

func run() error {
	// A flag set of our own: controller-runtime registers --kubeconfig on the global one.
	flags := flag.NewFlagSet("gardener-envtest", flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "where to write the admin (system:masters) kubeconfig (required)")
	featureGates := flags.String("feature-gates", "VersionClassificationLifecycle=false", "gardener-apiserver's --feature-gates")
	disabledPlugins := flags.String("disable-admission-plugins", "", "gardener-apiserver's --disable-admission-plugins (default: none; every default plugin runs)")
	ncpController := flags.Bool("namespacedcloudprofile-controller", true, "run gardener-controller-manager's NamespacedCloudProfile controller, which writes the merged profile a Shoot on a NamespacedCloudProfile is validated against")
	verbose := flags.Bool("v", false, "control-plane output and debug logs on stderr")
	_ = flags.Parse(os.Args[1:])
	if *kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return fmt.Errorf("KUBEBUILDER_ASSETS must name the folder holding etcd, kube-apiserver and kubectl (test/e2e/build-binaries.sh prints it)")
	}
	// Whoever started us may die without a word (kill -9): then we get SIGTERM and stop the
	// control plane, whose processes envtest puts in process groups of their own.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	logf.SetLogger(zap.New(zap.UseDevMode(*verbose), zap.WriteTo(os.Stderr)))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	started := time.Now()
	env := &gardenerenvtest.GardenerTestEnvironment{
		Environment: &envtest.Environment{AttachControlPlaneOutput: *verbose, ControlPlaneStartTimeout: 2 * time.Minute, ControlPlaneStopTimeout: time.Minute},
		GardenerAPIServer: &gardenerenvtest.GardenerAPIServer{
			Args: []string{
				"--feature-gates=" + *featureGates,
				"--disable-admission-plugins=" + *disabledPlugins,
			},
		},
	}
	if *verbose {
		env.GardenerAPIServer.Err = os.Stderr
	}
	if _, err := env.Start(); err != nil {
		_ = env.Stop()
		return fmt.Errorf("starting the test environment: %w", err)
	}
	defer func() {
		fmt.Fprintln(os.Stderr, "gardener-envtest: stopping")
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "gardener-envtest: stopping:", err)
		}
	}()

	admin, err := env.ControlPlane.AddUser(envtest.User{Name: "gardener-envtest-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("adding the admin user: %w", err)
	}
	bytes, err := admin.KubeConfig()
	if err != nil {
		return err
	}
	path, err := filepath.Abs(*kubeconfig)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, bytes, 0o600); err != nil {
		return err
	}
	if *ncpController {
		if err := startNamespacedCloudProfileController(ctx, admin.Config()); err != nil {
			return fmt.Errorf("starting the NamespacedCloudProfile controller: %w", err)
		}
	}
	line, err := json.Marshal(ready{
		Kubeconfig:   path,
		Server:       admin.Config().Host,
		FeatureGates: *featureGates,
		Children:     children(),
		StartSeconds: time.Since(started).Seconds(),
		Versions:     versions(),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(line))

	<-ctx.Done()
	return nil
}

// children maps the pids of this process's children (etcd, kube-apiserver) to their names, so
// that a caller that has to kill this process with SIGKILL can kill them too.
func children() map[string]int {
	out := map[string]int{}
	self := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so read after its closing parenthesis.
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) > 1 && fields[1] == self {
			out[s[open+1:end]] = pid
		}
	}
	return out
}
