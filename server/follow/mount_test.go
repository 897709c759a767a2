package follow_test

import (
	"os/exec"
	"strconv"
)

// mount puts a tmpfs of size bytes on dir; unmount takes it off.
func mount(dir string, size int64) ([]byte, error) {
	return exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput()
}

func unmount(dir string) error { return exec.Command("umount", dir).Run() }
