// Package check validates the Kubernetes manifests of ../ without a cluster
// or downloaded schemas: kubeconform installs from the Go module proxy but
// needs JSON schemas from the network, which this machine and CI do not
// reach. Instead every document is decoded strictly into the Kubernetes API
// types (k8s.io/api), which rejects unknown fields, misplaced fields and
// wrong value types, and then the wiring between the objects is checked:
// selectors, named ports, probes, drain timing. It is its own module so that
// k8s.io/api stays out of stationdex's go.mod.
package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// manifests are every object of ../, decoded.
type manifests struct {
	namespaces  []corev1.Namespace
	deployments []appsv1.Deployment
	services    []corev1.Service
	pdbs        []policyv1.PodDisruptionBudget
	hpas        []autoscalingv2.HorizontalPodAutoscaler
}

// load decodes every YAML document of every manifest the kustomization
// lists, strictly.
func load(t *testing.T) manifests {
	t.Helper()
	var m manifests
	files := kustomizationResources(t)
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range splitDocs(raw) {
			if err := m.decode(doc); err != nil {
				t.Errorf("%s document %d: %v", f, i+1, err)
			}
		}
	}
	return m
}

func kustomizationResources(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	yamls, _ := filepath.Glob("../*.yaml")
	if len(k.Resources) == 0 || len(k.Resources) != len(yamls)-1 {
		t.Fatalf("kustomization lists %v; want every other manifest of %v", k.Resources, yamls)
	}
	return k.Resources
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

func splitDocs(raw []byte) [][]byte {
	var docs [][]byte
	for _, d := range docSeparator.Split(string(raw), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// decode picks the API type from apiVersion and kind and decodes doc into
// it, failing on any field the type does not have.
func (m *manifests) decode(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Namespace":
		return decodeInto(doc, &m.namespaces)
	case "apps/v1 Deployment":
		return decodeInto(doc, &m.deployments)
	case "v1 Service":
		return decodeInto(doc, &m.services)
	case "policy/v1 PodDisruptionBudget":
		return decodeInto(doc, &m.pdbs)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		return decodeInto(doc, &m.hpas)
	}
	return fmt.Errorf("unexpected object %s %s: add it to the check", tm.APIVersion, tm.Kind)
}

func decodeInto[T any](doc []byte, into *[]T) error {
	var v T
	if err := yaml.UnmarshalStrict(doc, &v); err != nil {
		return err
	}
	*into = append(*into, v)
	return nil
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := load(t)
	if len(m.namespaces) != 1 || len(m.deployments) != 1 || len(m.services) != 2 || len(m.pdbs) != 1 || len(m.hpas) != 1 {
		t.Fatalf("found %d namespaces, %d deployments, %d services, %d PDBs, %d HPAs; want 1, 1, 2, 1, 1",
			len(m.namespaces), len(m.deployments), len(m.services), len(m.pdbs), len(m.hpas))
	}
}

func TestStrictDecodingRejectsTypos(t *testing.T) {
	bad := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replica: 3\n")
	var m manifests
	if err := m.decode(bad); err == nil {
		t.Fatal("a misspelt field decoded without error; the check would not catch typos")
	}
}

func TestSelectorsMatchPods(t *testing.T) {
	m := load(t)
	d := m.deployments[0]
	pod := labels.Set(d.Spec.Template.Labels)
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(pod) {
		t.Errorf("deployment selector %v does not select its pods %v (%v)", d.Spec.Selector, pod, err)
	}
	for _, s := range m.services {
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(pod) {
			t.Errorf("service %s selects %v, not the pods %v", s.Name, s.Spec.Selector, pod)
		}
	}
	pdbSel, err := metav1.LabelSelectorAsSelector(m.pdbs[0].Spec.Selector)
	if err != nil || !pdbSel.Matches(pod) {
		t.Errorf("PDB selector does not select the pods (%v)", err)
	}
	if ref := m.hpas[0].Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("HPA scales %s/%s, want Deployment/%s", ref.Kind, ref.Name, d.Name)
	}
	for _, obj := range []metav1.ObjectMeta{d.ObjectMeta, m.services[0].ObjectMeta, m.services[1].ObjectMeta, m.pdbs[0].ObjectMeta, m.hpas[0].ObjectMeta} {
		if obj.Namespace != m.namespaces[0].Name {
			t.Errorf("%s is in namespace %q, want %q", obj.Name, obj.Namespace, m.namespaces[0].Name)
		}
	}
}

func TestPortsAndProbes(t *testing.T) {
	m := load(t)
	c := serveContainer(t, m.deployments[0])
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, s := range m.services {
		for _, p := range s.Spec.Ports {
			if _, ok := ports[p.TargetPort.String()]; !ok {
				t.Errorf("service %s targets port %q, which the container does not name", s.Name, p.TargetPort.String())
			}
		}
	}
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz", ports)
	checkProbe(t, "liveness", c.LivenessProbe, "/healthz", ports)
	args := strings.Join(c.Args, " ")
	if want := fmt.Sprintf("-admin-addr=:%d", ports["admin"]); !strings.Contains(args, want) {
		t.Errorf("container args %q: want %s, the port the probes use", args, want)
	}
	if want := fmt.Sprintf("-addr=:%d", ports["http"]); !strings.Contains(args, want) {
		t.Errorf("container args %q: want %s, the port the Service uses", args, want)
	}
}

func checkProbe(t *testing.T, name string, p *corev1.Probe, path string, ports map[string]int32) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s probe: want an HTTP GET of %s", name, path)
		return
	}
	if p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "admin" {
		t.Errorf("%s probe: GET %s on port %s, want %s on the admin port", name, p.HTTPGet.Path, p.HTTPGet.Port.String(), path)
	}
	if _, ok := ports["admin"]; !ok {
		t.Errorf("%s probe: no container port named admin", name)
	}
}

func serveContainer(t *testing.T, d appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if slices.Contains(c.Args, "serve") {
			return c
		}
	}
	t.Fatal("no container runs `stationdex serve`")
	return corev1.Container{}
}

// TestAvailabilityDuringChanges: several replicas, rollouts that never go
// below the current capacity, and a grace period that covers the preStop
// pause plus the node's own drain bound.
func TestAvailabilityDuringChanges(t *testing.T) {
	m := load(t)
	d := m.deployments[0]
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v, want several", d.Spec.Replicas)
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Errorf("rolling update may take replicas away before new ones are ready")
	}
	if min := m.hpas[0].Spec.MinReplicas; min == nil || *d.Spec.Replicas != *min {
		t.Errorf("HPA minReplicas %v and deployment replicas %d differ", min, *d.Spec.Replicas)
	}
	c := serveContainer(t, d)
	drain := flagDuration(t, c.Args, "-drain-timeout")
	var pause time.Duration
	if l := c.Lifecycle; l != nil && l.PreStop != nil && l.PreStop.Sleep != nil {
		pause = time.Duration(l.PreStop.Sleep.Seconds) * time.Second
	}
	grace := time.Duration(*d.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	if grace <= pause+drain {
		t.Errorf("terminationGracePeriodSeconds %v <= preStop %v + -drain-timeout %v: drains get killed", grace, pause, drain)
	}
}

func flagDuration(t *testing.T, args []string, name string) time.Duration {
	t.Helper()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			return d
		}
	}
	t.Fatalf("no %s in %v", name, args)
	return 0
}

// TestIndexShippedImmutable: the index reaches the serving container only
// read-only, and is checked in full before the pod can become ready.
func TestIndexShippedImmutable(t *testing.T) {
	m := load(t)
	spec := m.deployments[0].Spec.Template.Spec
	c := serveContainer(t, m.deployments[0])
	for _, vm := range c.VolumeMounts {
		if !vm.ReadOnly {
			t.Errorf("serve container mounts %s writable", vm.Name)
		}
	}
	var checked bool
	for _, ic := range spec.InitContainers {
		checked = checked || strings.Join(ic.Args, " ") == "check /index/stationdex.db"
	}
	if !checked {
		t.Error("no init container runs `stationdex check` on the index")
	}
}
