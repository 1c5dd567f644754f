//go:build !linux && !js

package docserver

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// A dirRoot reads the files of a documents folder through an os.Root
// (nothing outside the folder), refusing a path with a symlink on it. Off
// Linux there is no openat2: the components are checked with Lstat before
// the open, which leaves a race that Linux does not have.
type dirRoot struct {
	root *os.Root
}

func openDirRoot(dir string) (*dirRoot, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &dirRoot{root: r}, nil
}

func (r *dirRoot) read(p string) ([]byte, fileID, error) {
	parts := strings.Split(p, "/")
	for i := range parts {
		fi, err := r.root.Lstat(path.Join(parts[:i+1]...))
		if err != nil {
			return nil, fileID{}, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fileID{}, fmt.Errorf("%s: a symlink is on the path (document reads follow none)", p)
		}
	}
	f, err := r.root.Open(p)
	if err != nil {
		return nil, fileID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileID{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fileID{}, fmt.Errorf("%s: not a regular file", p)
	}
	data, err := fs.ReadFile(r.root.FS(), p)
	return data, idOf(fi), err
}

func (r *dirRoot) close() error { return r.root.Close() }
