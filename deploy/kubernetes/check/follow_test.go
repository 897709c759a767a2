package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// followManifests are the objects of ../follow/: nodes that follow a
// published snapshot, the CronJob that publishes it, and its server.
type followManifests struct {
	cronJobs    []batchv1.CronJob
	deployments []appsv1.Deployment
	services    []corev1.Service
	claims      []corev1.PersistentVolumeClaim
	configMaps  []corev1.ConfigMap
}

func loadFollow(t *testing.T) followManifests {
	t.Helper()
	raw, err := os.ReadFile("../follow/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatalf("follow/kustomization.yaml: %v", err)
	}
	yamls, _ := filepath.Glob("../follow/*.yaml")
	if len(k.Resources) != len(yamls)-1 {
		t.Fatalf("follow/kustomization lists %v; want every other manifest of %v", k.Resources, yamls)
	}
	var m followManifests
	for _, f := range k.Resources {
		raw, err := os.ReadFile(filepath.Join("../follow", f))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range splitDocs(raw) {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatal(err)
			}
			switch tm.APIVersion + " " + tm.Kind {
			case "batch/v1 CronJob":
				err = decodeInto(doc, &m.cronJobs)
			case "apps/v1 Deployment":
				err = decodeInto(doc, &m.deployments)
			case "v1 Service":
				err = decodeInto(doc, &m.services)
			case "v1 PersistentVolumeClaim":
				err = decodeInto(doc, &m.claims)
			case "v1 ConfigMap":
				err = decodeInto(doc, &m.configMaps)
			default:
				t.Errorf("follow/%s document %d: unexpected %s %s: add it to the check", f, i+1, tm.APIVersion, tm.Kind)
			}
			if err != nil {
				t.Errorf("follow/%s document %d: %v", f, i+1, err)
			}
		}
	}
	return m
}

// TestFollowManifests: the CronJob publishes into the claim the static
// server reads; the nodes follow that server's latest.json with the key of
// the ConfigMap, into a writable volume, and are the pods the Services of
// ../ select.
func TestFollowManifests(t *testing.T) {
	m := loadFollow(t)
	if len(m.cronJobs) != 1 || len(m.deployments) != 2 || len(m.services) != 1 || len(m.claims) != 1 || len(m.configMaps) != 1 {
		t.Fatalf("found %d CronJobs, %d Deployments, %d Services, %d claims, %d ConfigMaps; want 1, 2, 1, 1, 1",
			len(m.cronJobs), len(m.deployments), len(m.services), len(m.claims), len(m.configMaps))
	}
	claim := m.claims[0].Name
	job := m.cronJobs[0].Spec.JobTemplate.Spec.Template.Spec
	var publish *corev1.Container
	for i, c := range job.Containers {
		if slices.Contains(c.Args, "publish") {
			publish = &job.Containers[i]
		}
	}
	if publish == nil {
		t.Fatal("no CronJob container runs `stationdex publish`")
	}
	if !mountsClaim(job, *publish, claim, "-dir=") {
		t.Errorf("the publish container does not write into claim %s at its -dir", claim)
	}
	var server, follower appsv1.Deployment
	for _, d := range m.deployments {
		if isFollower(d) {
			follower = d
		} else {
			server = d
		}
	}
	if follower.Name == "" || server.Name == "" {
		t.Fatal("want one following node Deployment and one snapshot server")
	}
	if len(server.Spec.Template.Spec.Volumes) == 0 || server.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim == nil ||
		server.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != claim {
		t.Errorf("the snapshot server does not serve claim %s", claim)
	}
	svc := m.services[0]
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(server.Spec.Template.Labels)) {
		t.Errorf("service %s does not select the snapshot server", svc.Name)
	}
	c := serveContainer(t, follower)
	args := strings.Join(c.Args, " ")
	if want := "-follow=http://" + svc.Name + "." + svc.Namespace + ".svc/latest.json"; !strings.Contains(args, want) {
		t.Errorf("node args %q: want %s", args, want)
	}
	for _, want := range []string{"-index=/index/", "-every=", "-follow-key=/key/"} {
		if !strings.Contains(args, want) {
			t.Errorf("node args %q: want %s", args, want)
		}
	}
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == "/index" && vm.ReadOnly {
			t.Error("the index volume is read-only: a follower writes its downloads there")
		}
	}
	if follower.Spec.Template.Labels["app.kubernetes.io/name"] != "stationdex" || follower.Name != "stationdex" {
		t.Error("the following nodes are not the Deployment and pods the Services, PDB and HPA of ../ name")
	}
}

func isFollower(d appsv1.Deployment) bool {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-follow=") {
				return true
			}
		}
	}
	return false
}

// mountsClaim reports whether c mounts claim at the directory its flag
// (e.g. -dir=) names.
func mountsClaim(pod corev1.PodSpec, c corev1.Container, claim, flag string) bool {
	var dir string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, flag); ok {
			dir = v
		}
	}
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim {
			continue
		}
		for _, vm := range c.VolumeMounts {
			if vm.Name == v.Name && vm.MountPath == dir && !vm.ReadOnly {
				return true
			}
		}
	}
	return false
}
