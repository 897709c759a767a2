package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"stationdex/internal/format"
)

// The messages a user can act on: each names the file or folder as the
// user named it, says what is wrong in words rather than the system's,
// and gives the next command.

// buildHint is the command that makes an index at path.
func buildHint(path string) string {
	return fmt.Sprintf("stationdex index -o %s DUMP (DUMP: a Radio Browser dump, a file or URL such as https://de1.api.radio-browser.info/json/stations)", path)
}

// adviceError is a failure told as a sentence and the next step.
type adviceError struct {
	msg, advice string
}

func (e *adviceError) Error() string { return e.msg }

// print writes the message and its advice for command cmd.
func (e *adviceError) print(w interface{ Write([]byte) (int, error) }, cmd string) {
	fmt.Fprintf(w, "stationdex %s: %s\n", cmd, e.msg)
	if e.advice != "" {
		fmt.Fprintln(w, e.advice)
	}
}

// indexFileError says why the index file at path (as the user named it,
// with the flag that named it, if any) cannot be opened, and what to do.
func indexFileError(path, flagName string, err error) *adviceError {
	named := path
	if flagName != "" {
		named = fmt.Sprintf("%s (%s)", path, flagName)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &adviceError{fmt.Sprintf("no index file at %s", named), "Build one with: " + buildHint(path)}
	case errors.Is(err, fs.ErrPermission):
		return &adviceError{fmt.Sprintf("cannot read the index file %s: permission denied", named),
			"Make it readable, or name another file."}
	case isDir(path):
		return &adviceError{fmt.Sprintf("%s is a folder, not an index file", named),
			"Name the index file itself, or build one with: " + buildHint(filepath.Join(path, "stations.db"))}
	case errors.Is(err, format.ErrVersion):
		return &adviceError{fmt.Sprintf("%s was written by another version of stationdex (%s)", named, reason(err, path)),
			"Rebuild it with: " + buildHint(path)}
	case errors.Is(err, format.ErrNotIndex):
		return &adviceError{fmt.Sprintf("%s is not a stationdex index", named),
			fmt.Sprintf("See what it is with: stationdex check %s; build an index with: %s", path, buildHint(path))}
	case errors.Is(err, format.ErrCorrupt):
		return &adviceError{fmt.Sprintf("%s is damaged (truncated or overwritten?)", named),
			fmt.Sprintf("See the damage with: stationdex check %s; rebuild it with: %s", path, buildHint(path))}
	}
	return &adviceError{fmt.Sprintf("cannot open the index file %s: %s", named, reason(err, path)),
		fmt.Sprintf("See what is wrong with: stationdex check %s", path)}
}

// reason is err's text without the prefixes that repeat the path, and in
// the system's words only where there are no others.
func reason(err error, path string) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errnoText(errno)
	}
	msg := err.Error()
	for _, p := range []string{"open index " + path + ": ", "open " + path + ": ", format.ErrNotIndex.Error() + ": "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

func errnoText(errno syscall.Errno) string {
	switch errno {
	case syscall.EACCES, syscall.EPERM:
		return "permission denied"
	case syscall.EROFS:
		return "the file system is read-only"
	case syscall.ENOSPC:
		return "the disk is full"
	case syscall.ENOENT:
		return "it does not exist"
	case syscall.ENOTDIR:
		return "a part of the path is a file, not a folder"
	}
	return errno.Error()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// folderError says what stops a command writing into the folder dir,
// which the user named by flagName value; nil when a file can be created
// there.
func folderError(flagName, value, dir string) *adviceError {
	where := fmt.Sprintf("the folder %s (of %s %s)", dir, flagName, value)
	if flagName == "-tmpdir" {
		where = fmt.Sprintf("the folder %s (-tmpdir)", dir)
	}
	if dir == "." {
		where = fmt.Sprintf("the current folder (of %s %s)", flagName, value)
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &adviceError{where + " does not exist", fmt.Sprintf("Create it with: mkdir -p %s; or name another %s.", dir, flagName)}
	case err != nil:
		return &adviceError{fmt.Sprintf("cannot use %s: %s", where, reason(err, dir)), fmt.Sprintf("Name another %s.", flagName)}
	case !st.IsDir():
		return &adviceError{where + " is a file, not a folder", fmt.Sprintf("Name another %s.", flagName)}
	}
	probe, err := os.CreateTemp(dir, ".stationdex-probe-*")
	if err != nil {
		return &adviceError{fmt.Sprintf("cannot write in %s: %s", where, reason(err, dir)),
			fmt.Sprintf("Name a folder you can write in with %s.", flagName)}
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	return nil
}

// flagMessage words a flag package error for a person.
func flagMessage(fset *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("unknown flag %s (see stationdex %s -h)", name, fset.Name())
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("%s needs a value", name)
	}
	var value, name string
	if n, _ := fmt.Sscanf(msg, "invalid boolean value %q for %s", &value, &name); n == 2 {
		return fmt.Sprintf("%s %q: want true or false", strings.TrimSuffix(name, ":"), value)
	}
	if n, _ := fmt.Sscanf(msg, "invalid value %q for flag %s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		want := "another value"
		if f := fset.Lookup(strings.TrimLeft(name, "-")); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case int, int64, uint, uint64:
					want = "a whole number"
				case time.Duration:
					want = "a duration such as 30s or 5m"
				case float64:
					want = "a number"
				}
			}
		}
		return fmt.Sprintf("%s %q: want %s", name, value, want)
	}
	return msg
}
