package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
)

// scenario is the objects of a scenario's files, as gardener-apiserver would store them: decoded
// into Gardener's types and defaulted by Gardener's scheme.
type scenario struct {
	cloudProfiles []*gardencorev1beta1.CloudProfile
	namespaced    []*gardencorev1beta1.NamespacedCloudProfile
	shoots        []*gardencorev1beta1.Shoot
	// windowless names the Shoots the files give no maintenance time window (see randomWindow).
	windowless map[string]bool
	// notes says what the files hold that the run leaves out (other kinds).
	notes []string
}

func loadScenario(files []string) (*scenario, error) {
	byKey := map[string]client.Object{}
	var order []string
	var notes []string
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var doc map[string]any
			if err := decoder.Decode(&doc); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if doc == nil {
				continue
			}
			obj, err := decode(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if obj == nil {
				notes = append(notes, fmt.Sprintf("%s: a %v is not part of the maintenance run", file, doc["kind"]))
				continue
			}
			key := fmt.Sprintf("%T/%s/%s", obj, obj.GetNamespace(), obj.GetName())
			if _, seen := byKey[key]; !seen {
				order = append(order, key)
			}
			byKey[key] = obj
		}
	}
	sort.Strings(order)
	sc := &scenario{notes: notes, windowless: map[string]bool{}}
	for _, key := range order {
		obj := byKey[key]
		if shoot, ok := obj.(*gardencorev1beta1.Shoot); ok && (shoot.Spec.Maintenance == nil || shoot.Spec.Maintenance.TimeWindow == nil) {
			sc.windowless[client.ObjectKeyFromObject(shoot).String()] = true
		}
		// Gardener's defaulting, as gardener-apiserver applies it when the object is written.
		kubernetes.GardenScheme.Default(obj)
		switch o := obj.(type) {
		case *gardencorev1beta1.CloudProfile:
			sc.cloudProfiles = append(sc.cloudProfiles, o)
		case *gardencorev1beta1.NamespacedCloudProfile:
			sc.namespaced = append(sc.namespaced, o)
		case *gardencorev1beta1.Shoot:
			sc.shoots = append(sc.shoots, o)
		}
	}
	return sc, nil
}

// decode turns one YAML document into Gardener's type for it; nil for a kind the run does not use.
func decode(doc map[string]any) (client.Object, error) {
	var obj client.Object
	switch doc["kind"] {
	case "CloudProfile":
		obj = &gardencorev1beta1.CloudProfile{}
	case "NamespacedCloudProfile":
		obj = &gardencorev1beta1.NamespacedCloudProfile{}
	case "Shoot":
		obj = &gardencorev1beta1.Shoot{}
	default:
		return nil, nil
	}
	raw, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(raw, obj); err != nil {
		return nil, fmt.Errorf("%v %v: %w", doc["kind"], name(doc), err)
	}
	return obj, nil
}

func name(doc map[string]any) string {
	meta, _ := doc["metadata"].(map[string]any)
	if ns, ok := meta["namespace"].(string); ok {
		return fmt.Sprintf("%s/%v", ns, meta["name"])
	}
	return fmt.Sprint(meta["name"])
}
