// semver-oracle answers questions about versions the way Gardener does: Masterminds semver
// (NewVersion, Compare, NewConstraint, Check, IncMinor), Gardener's pkg/utils/version helpers
// (CompareVersions, CheckVersionMeetsConstraint) and time.Parse(time.RFC3339), which decodes a
// metav1.Time. One JSON array per input line (the question's kind, then its strings); one JSON
// object per output line. test/e2e/semver/differential.ts asks it and compares every answer with
// src/gardener/semver.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/Masterminds/semver/v3"
	versionutils "github.com/gardener/gardener/pkg/utils/version"
)

type answer struct {
	OK    *bool   `json:"ok,omitempty"`
	Err   string  `json:"err,omitempty"`
	Text  string  `json:"text,omitempty"`
	Parts *[5]any `json:"parts,omitempty"`
	Cmp   *int    `json:"cmp,omitempty"`
	Ms    *int64  `json:"ms,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var q []string
		if err := json.Unmarshal(in.Bytes(), &q); err != nil || len(q) == 0 {
			fmt.Fprintf(os.Stderr, "semver-oracle: bad question %q\n", in.Text())
			os.Exit(2)
		}
		if err := enc.Encode(ask(q)); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "semver-oracle:", err)
		os.Exit(1)
	}
}

func ask(q []string) (a answer) {
	// A question the library panics over (IncMinor past uint64) is answered with the panic.
	defer func() {
		if r := recover(); r != nil {
			a = answer{Err: fmt.Sprint("panic: ", r)}
		}
	}()
	switch q[0] {
	case "version": // NewVersion(s): its parts, or the error
		v, err := semver.NewVersion(q[1])
		if err != nil {
			return answer{Err: err.Error()}
		}
		parts := [5]any{strconv.FormatUint(v.Major(), 10), strconv.FormatUint(v.Minor(), 10), strconv.FormatUint(v.Patch(), 10), v.Prerelease(), v.Metadata()}
		return answer{Text: v.String(), Parts: &parts}
	case "compare": // NewVersion(a).Compare(NewVersion(b))
		a, errA := semver.NewVersion(q[1])
		b, errB := semver.NewVersion(q[2])
		if errA != nil || errB != nil {
			return answer{Err: "unparseable"}
		}
		c := a.Compare(b)
		return answer{Cmp: &c}
	case "check": // NewConstraint(c).Check(NewVersion(v))
		c, err := semver.NewConstraint(q[1])
		if err != nil {
			return answer{Err: err.Error()}
		}
		v, err := semver.NewVersion(q[2])
		if err != nil {
			return answer{Err: "version: " + err.Error()}
		}
		ok := c.Check(v)
		return answer{OK: &ok}
	case "compareVersions": // versionutils.CompareVersions(a, op, b)
		ok, err := versionutils.CompareVersions(q[1], q[2], q[3])
		return boolOrErr(ok, err)
	case "meets": // versionutils.CheckVersionMeetsConstraint(v, c)
		ok, err := versionutils.CheckVersionMeetsConstraint(q[1], q[2])
		return boolOrErr(ok, err)
	case "nextMinor": // NewVersion(s).IncMinor().String()
		v, err := semver.NewVersion(q[1])
		if err != nil {
			return answer{Err: err.Error()}
		}
		return answer{Text: v.IncMinor().String()}
	case "instant": // time.Parse(time.RFC3339, s), as metav1.Time decodes
		t, err := time.Parse(time.RFC3339, q[1])
		if err != nil {
			return answer{Err: err.Error()}
		}
		ms := t.UnixMilli()
		return answer{Ms: &ms}
	}
	fmt.Fprintf(os.Stderr, "semver-oracle: unknown question %q\n", q[0])
	os.Exit(2)
	return
}

func boolOrErr(ok bool, err error) answer {
	if err != nil {
		return answer{Err: err.Error()}
	}
	return answer{OK: &ok}
}
