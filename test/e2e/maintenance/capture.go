package main

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
)

// recorder keeps the events the reconcilers record, with their format arguments, so that a run's
// reasons and failures are read from what Gardener reports, not from our own reading of its code.
type recorder struct {
	mu     sync.Mutex
	events []event
}

type event struct {
	Type, Reason, Note string
	Args               []any
}

func (r *recorder) Eventf(_ runtime.Object, _ runtime.Object, eventtype, reason, _ string, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{Type: eventtype, Reason: reason, Note: note, Args: args})
}

func (r *recorder) take() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// logSink keeps the reconciler's log lines: some failures (an image part that stops on a missing
// machine type or image) are only logged, and the skip of a Shoot being deleted too.
type logSink struct {
	mu    sync.Mutex
	lines []logLine
}

type logLine struct {
	Msg string
	Err error
}

func (s *logSink) logger() logr.Logger { return logr.New(sinkAdapter{s}) }

func (s *logSink) take() []logLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.lines
	s.lines = nil
	return out
}

type sinkAdapter struct{ s *logSink }

func (a sinkAdapter) Init(logr.RuntimeInfo)            {}
func (a sinkAdapter) Enabled(int) bool                 { return true }
func (a sinkAdapter) Info(_ int, msg string, _ ...any) { a.add(logLine{Msg: msg}) }
func (a sinkAdapter) Error(err error, msg string, _ ...any) {
	a.add(logLine{Msg: msg, Err: err})
}
func (a sinkAdapter) WithValues(...any) logr.LogSink { return a }
func (a sinkAdapter) WithName(string) logr.LogSink   { return a }
func (a sinkAdapter) add(l logLine) {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	a.s.lines = append(a.s.lines, l)
}

func (l logLine) String() string {
	if l.Err != nil {
		return fmt.Sprintf("%s: %v", l.Msg, l.Err)
	}
	return l.Msg
}
