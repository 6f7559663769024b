package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
)

type runMode string

const (
	atBegin runMode = "begin"
	// atLast runs at the last whole second of the effective window, the latest instant Gardener's
	// random pick ([begin, end − 15 min)) can take to the second.
	atLast runMode = "last"
)

var zeroTime = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// randomWindow stands in for Gardener's defaulting of a Shoot without a maintenance time window
// (v1beta1 defaults_shoot.go, SetDefaults_Maintenance): gardener-apiserver gives it a random one,
// a whole hour beginning at 00:00 to 22:00 UTC (timewindow.RandomMaintenanceTimeWindow). The run
// at the begin takes the earliest such window, the run at the last second the latest.
func randomWindow(mode runMode) *gardencorev1beta1.MaintenanceTimeWindow {
	if mode == atLast {
		return &gardencorev1beta1.MaintenanceTimeWindow{Begin: "220000+0000", End: "230000+0000"}
	}
	return &gardencorev1beta1.MaintenanceTimeWindow{Begin: "000000+0000", End: "010000+0000"}
}

type component struct {
	Kind  string `json:"kind"`
	Pool  string `json:"pool,omitempty"`
	Image string `json:"image,omitempty"`
}

type change struct {
	Component component `json:"component"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	// Reason is Gardener's, from the run's event; empty when Gardener recorded none for the change.
	Reason string `json:"reason,omitempty"`
}

type failure struct {
	Component component `json:"component"`
	Reason    string    `json:"reason,omitempty"`
	Message   string    `json:"message"`
	// Recorded: in an event or status.lastMaintenance; false when Gardener only logged it.
	Recorded bool `json:"recorded"`
}

type runOut struct {
	// Window is the begin of the day's window; At the instant the reconciler ran.
	Window   string    `json:"window"`
	At       string    `json:"at"`
	Changes  []change  `json:"changes,omitempty"`
	Failures []failure `json:"failures,omitempty"`
	// Attempts > 1: a reconcile took longer than clock.go allows and ran again from the same state.
	Attempts int `json:"attempts,omitempty"`
}

type shootOut struct {
	Shoot   string   `json:"shoot"`
	Skipped string   `json:"skipped,omitempty"`
	Runs    []runOut `json:"runs"`
}

type result struct {
	Scenario string            `json:"scenario"`
	At       runMode           `json:"at"`
	Now      string            `json:"now"`
	Until    string            `json:"until"`
	Notes    []string          `json:"notes,omitempty"`
	Shoots   []shootOut        `json:"shoots"`
	Versions map[string]string `json:"versions"`
	// Reconciles and CPUSeconds (this process's, user and system) measure the run: bench/maintenance-diff.ts.
	Reconciles int     `json:"reconciles"`
	CPUSeconds float64 `json:"cpuSeconds"`
}

func simulate(sc *scenario, mode runMode, now, until time.Time) (*result, error) {
	ctx := context.Background()
	cpuBefore := cpuSeconds()
	w, notes, err := newWorld(ctx, sc, randomWindow(mode))
	if err != nil {
		return nil, err
	}
	out := &result{At: mode, Now: now.Format(time.RFC3339), Until: until.Format(time.RFC3339), Notes: append(sc.notes, notes...), Shoots: []shootOut{}}
	for _, o := range sc.shoots {
		key := client.ObjectKeyFromObject(o)
		so := shootOut{Shoot: key.String(), Runs: []runOut{}}
		s := &gardencorev1beta1.Shoot{}
		if err := w.base.Get(ctx, key, s); err != nil {
			return nil, err
		}
		window := gardenerutils.EffectiveShootMaintenanceTimeWindow(s)
		offset := time.Duration(0)
		if mode == atLast {
			offset = window.Duration() - time.Second
		}
		for _, begin := range windowBegins(s, now, until) {
			at := begin.Add(offset)
			run, skipped, err := w.maintainOnce(ctx, key, at)
			out.Reconciles++
			run.Window = begin.Format(time.RFC3339)
			if err != nil {
				return nil, fmt.Errorf("Shoot %s at %s: %w", key, at.Format(time.RFC3339), err)
			}
			if skipped != "" {
				so.Skipped = skipped
				break
			}
			if len(run.Changes) > 0 || len(run.Failures) > 0 || run.Attempts > 1 {
				so.Runs = append(so.Runs, run)
			}
		}
		out.Shoots = append(out.Shoots, so)
	}
	out.CPUSeconds = cpuSeconds() - cpuBefore
	return out, nil
}

func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// windowBegins are the begins of the Shoot's effective window (Gardener's
// EffectiveShootMaintenanceTimeWindow, in UTC), one a day: the first strictly after now, the last
// before until. The reconciler runs once in each, at its begin or at its last second.
func windowBegins(shoot *gardencorev1beta1.Shoot, now, until time.Time) []time.Time {
	begin := gardenerutils.EffectiveShootMaintenanceTimeWindow(shoot).Begin()
	day := time.Date(now.Year(), now.Month(), now.Day(), begin.Hour(), begin.Minute(), begin.Second(), 0, time.UTC)
	if !day.After(now) {
		day = day.Add(24 * time.Hour)
	}
	var out []time.Time
	for ; day.Before(until); day = day.Add(24 * time.Hour) {
		out = append(out, day)
	}
	return out
}

// maintainOnce runs the reconciler once at the instant and reads back what it did.
func (w *world) maintainOnce(ctx context.Context, key client.ObjectKey, at time.Time) (runOut, string, error) {
	before := &gardencorev1beta1.Shoot{}
	if err := w.base.Get(ctx, key, before); err != nil {
		return runOut{}, "", err
	}
	ctx = logf.IntoContext(ctx, w.logs.logger())
	run := runOut{At: at.Format(time.RFC3339)}
	var events []event
	var logs []logLine
	var recErr error
	for {
		run.Attempts++
		w.clock.SetTime(at)
		w.events.take()
		w.logs.take()
		started := time.Now()
		_, recErr = w.maint.Reconcile(ctx, reconcile.Request{NamespacedName: key})
		elapsed := time.Since(started)
		events, logs = w.events.take(), w.logs.take()
		if elapsed < maxElapsed {
			break
		}
		if run.Attempts >= 10 {
			return runOut{}, "", fmt.Errorf("every reconcile took longer than %v: the date shift (clock.go) would not be exact", maxElapsed)
		}
		if err := w.restore(ctx, before); err != nil {
			return runOut{}, "", err
		}
	}
	if run.Attempts == 1 {
		run.Attempts = 0
	}
	for _, l := range logs {
		if l.Msg == "Skipping Shoot because it is marked for deletion" {
			return run, "being deleted", nil
		}
	}
	after := &gardencorev1beta1.Shoot{}
	if err := w.base.Get(ctx, key, after); err != nil {
		return runOut{}, "", err
	}
	run.Changes = changesOf(before, after)
	run.Failures = readEvents(events, run.Changes)
	for _, l := range logs {
		// The image part stopped (maintainMachineImages returned an error): logged, nowhere else.
		if l.Msg == "Failed to maintain Shoot machine images" && l.Err != nil {
			run.Failures = append(run.Failures, failure{Component: component{Kind: "machine-image"}, Message: l.Err.Error()})
		}
	}
	if recErr != nil {
		run.Failures = append(run.Failures, failure{Component: component{Kind: "run"}, Message: recErr.Error(), Recorded: true})
	}
	if lm := after.Status.LastMaintenance; lm != nil && lm.State == gardencorev1beta1.LastOperationStateFailed &&
		lm.TriggeredTime.Time.Equal(at) && lm.Description == "Maintenance failed" {
		// The dry run was rejected: no step of the run applies.
		run.Failures = append(run.Failures, failure{Component: component{Kind: "run"}, Message: ptr.Deref(lm.FailureReason, ""), Recorded: true})
	}
	return run, "", nil
}

// restore puts the Shoot back as it was before a reconcile that has to run again.
func (w *world) restore(ctx context.Context, before *gardencorev1beta1.Shoot) error {
	current := &gardencorev1beta1.Shoot{}
	if err := w.base.Get(ctx, client.ObjectKeyFromObject(before), current); err != nil {
		return err
	}
	back := before.DeepCopy()
	back.ResourceVersion = current.ResourceVersion
	if err := w.base.Update(ctx, back); err != nil {
		return err
	}
	back.Status = before.Status
	return w.base.Status().Update(ctx, back)
}

func changesOf(before, after *gardencorev1beta1.Shoot) []change {
	var out []change
	if a, b := before.Spec.Kubernetes.Version, after.Spec.Kubernetes.Version; a != b {
		out = append(out, change{Component: component{Kind: "kubernetes"}, From: a, To: b})
	}
	old := map[string]gardencorev1beta1.Worker{}
	for _, w := range before.Spec.Provider.Workers {
		old[w.Name] = w
	}
	for _, w := range after.Spec.Provider.Workers {
		o := old[w.Name]
		if a, b := workerKubernetes(o), workerKubernetes(w); a != b {
			out = append(out, change{Component: component{Kind: "kubernetes", Pool: w.Name}, From: a, To: b})
		}
		if w.Machine.Image != nil && o.Machine.Image != nil {
			if a, b := ptr.Deref(o.Machine.Image.Version, ""), ptr.Deref(w.Machine.Image.Version, ""); a != b {
				out = append(out, change{Component: component{Kind: "machine-image", Pool: w.Name, Image: w.Machine.Image.Name}, From: a, To: b})
			}
		}
	}
	return out
}

func workerKubernetes(w gardencorev1beta1.Worker) string {
	if w.Kubernetes == nil {
		return ""
	}
	return ptr.Deref(w.Kubernetes.Version, "")
}

// readEvents gives each change Gardener's reason from the run's events, and returns the failures
// the events report. The reconciler formats its notes as "Control Plane: %s. Reason: %s." and
// "Worker pool %q: %v. Reason: %s." on success, "Control Plane: Kubernetes version maintenance
// failed. Reason for update: %s. Error: %v" and "Worker pool %q: %s version maintenance failed.
// Reason for update: %s. Error: %v" on failure; the arguments are read, not the text.
func readEvents(events []event, changes []change) []failure {
	var failures []failure
	setReason := func(c component, reason string) {
		for i := range changes {
			if changes[i].Component.Kind == c.Kind && changes[i].Component.Pool == c.Pool {
				changes[i].Reason = reason
			}
		}
	}
	for _, e := range events {
		kind := ""
		switch e.Reason {
		case gardencorev1beta1.ShootEventK8sVersionMaintenance:
			kind = "kubernetes"
		case gardencorev1beta1.ShootEventImageVersionMaintenance:
			kind = "machine-image"
		case gardencorev1beta1.ShootMaintenanceFailed:
			failures = append(failures, failure{Component: component{Kind: "run"}, Message: fmt.Sprintf(e.Note, e.Args...), Recorded: true})
			continue
		default:
			continue
		}
		controlPlane := strings.HasPrefix(e.Note, "Control Plane:")
		str := func(i int) string { return fmt.Sprint(e.Args[i]) }
		switch {
		case controlPlane && e.Type == "Normal" && len(e.Args) == 2:
			setReason(component{Kind: kind}, str(1))
		case controlPlane && len(e.Args) == 2:
			failures = append(failures, failure{Component: component{Kind: kind}, Reason: str(0), Message: str(1), Recorded: true})
		case e.Type == "Normal" && len(e.Args) == 3:
			setReason(component{Kind: kind, Pool: str(0)}, str(2))
		case len(e.Args) == 4:
			failures = append(failures, failure{Component: component{Kind: kind, Pool: str(0)}, Reason: str(2), Message: str(3), Recorded: true})
		default:
			failures = append(failures, failure{Component: component{Kind: "run"}, Message: "unread event: " + fmt.Sprintf(e.Note, e.Args...), Recorded: true})
		}
	}
	return failures
}
