// Command gardener-maintenance runs Gardener's own Shoot maintenance controller
// (pkg/controllermanager/controller/shoot/maintenance, the Reconciler of the Gardener release
// pinned in go.mod, unmodified) over scenarios of CloudProfiles, NamespacedCloudProfiles and
// Shoots, once per Shoot per day, and prints what it did as JSON: the forecast's differential test
// (test/e2e/forecast-diff) compares it with `version-policy forecast`.
//
//	gardener-maintenance [--at begin|last|both] MANIFEST.json
//
// The manifest is a JSON list of scenarios: {"name", "files": [YAML…], "now": RFC 3339, "days"}.
// A later file's object replaces an earlier one of the same kind, namespace and name (as
// `forecast --proposed` does). For each scenario and each run instant it prints one JSON line.
//
// What is real and what is not:
//   - Real: the maintenance Reconciler, Gardener's scheme and its defaulting (what gardener-apiserver
//     applies on every write), the NamespacedCloudProfile Reconciler (which writes the merged profile
//     the maintenance reads), Gardener's static Shoot validation (ValidateShootUpdate) and its
//     classification helpers.
//   - Faked: the API server is controller-runtime's fake client; the clock is k8s.io/utils'
//     fake clock (clock.go says how the lifecycle dates follow it); the events go to a recorder of
//     ours; two admission steps Gardener does not export are emulated (admission.go).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gardener/gardener/pkg/apiserver/features"
	gardenerfeatures "github.com/gardener/gardener/pkg/features"
)

type manifestEntry struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
	Now   string   `json:"now"`
	Days  int      `json:"days"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gardener-maintenance:", err)
		os.Exit(1)
	}
}

func run() error {
	// gardener-apiserver's feature gates (a superset of gardener-controller-manager's), with those on
	// whose fields the scenarios use: with them off, the API server would drop lifecycle stages,
	// capabilities and in-place settings on write, so such objects could not exist.
	features.RegisterFeatureGates()
	if err := gardenerfeatures.DefaultFeatureGate.SetFromMap(map[string]bool{
		string(gardenerfeatures.VersionClassificationLifecycle): true,
		string(gardenerfeatures.CloudProfileCapabilities):       true,
		string(gardenerfeatures.InPlaceNodeUpdates):             true,
	}); err != nil {
		return err
	}
	flags := flag.NewFlagSet("gardener-maintenance", flag.ExitOnError)
	at := flags.String("at", "both", "the run instant in each window: begin, last (its last second) or both")
	_ = flags.Parse(os.Args[1:])
	if flags.NArg() != 1 {
		return fmt.Errorf("usage: gardener-maintenance [--at begin|last|both] MANIFEST.json")
	}
	modes := map[string][]runMode{"begin": {atBegin}, "last": {atLast}, "both": {atBegin, atLast}}[*at]
	if modes == nil {
		return fmt.Errorf("--at %q: allowed are begin, last and both", *at)
	}
	raw, err := os.ReadFile(flags.Arg(0))
	if err != nil {
		return err
	}
	var manifest []manifestEntry
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return fmt.Errorf("%s: %w", flags.Arg(0), err)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for _, entry := range manifest {
		now, err := time.Parse(time.RFC3339, entry.Now)
		if err != nil {
			return fmt.Errorf("scenario %s: now: %w", entry.Name, err)
		}
		if entry.Days <= 0 {
			return fmt.Errorf("scenario %s: days must be positive, not %d", entry.Name, entry.Days)
		}
		sc, err := loadScenario(entry.Files)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", entry.Name, err)
		}
		for _, mode := range modes {
			result, err := simulate(sc, mode, now.UTC(), now.UTC().Add(time.Duration(entry.Days)*24*time.Hour))
			if err != nil {
				return fmt.Errorf("scenario %s (%s): %w", entry.Name, mode, err)
			}
			result.Scenario = entry.Name
			result.Versions = versions()
			if err := enc.Encode(result); err != nil {
				return err
			}
		}
	}
	return nil
}
