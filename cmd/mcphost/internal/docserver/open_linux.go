//go:build linux

package docserver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// A dirRoot reads the files of a documents folder without following any
// symlink on the path: openat2 with RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH
// below a descriptor of the folder (O_NOFOLLOW alone covers only the last
// component, so a team's folder replaced by a symlink into another team's
// would be followed). Where openat2 is missing (ENOSYS: kernels before 5.6,
// some seccomp filters), each component is opened with O_NOFOLLOW instead.
type dirRoot struct {
	fd  int // O_PATH descriptor of the folder, kept for the server's life
	dir string
}

func openDirRoot(dir string) (*dirRoot, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return &dirRoot{fd: fd, dir: dir}, nil
}

// read returns the bytes of the regular file at p (slash-separated, relative
// to the folder) and its device and inode, or an error naming why not.
func (r *dirRoot) read(p string) ([]byte, fileID, error) {
	fd, err := unix.Openat2(r.fd, p, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) {
		fd, err = r.openWalk(p)
	}
	if err != nil {
		return nil, fileID{}, openError(p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fileID{}, &os.PathError{Op: "fstat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fileID{}, fmt.Errorf("%s: not a regular file", p)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fileID{}, err
	}
	return data, fileID{dev: uint64(st.Dev), ino: st.Ino, links: uint64(st.Nlink)}, nil
}

// openWalk opens p one component at a time, each with O_NOFOLLOW, so a
// symlink anywhere on the path fails with ELOOP (or ENOTDIR).
func (r *dirRoot) openWalk(p string) (int, error) {
	parts := strings.Split(p, "/")
	dfd, err := unix.Dup(r.fd)
	if err != nil {
		return -1, err
	}
	for i, part := range parts {
		if !cleanSegment(part) {
			unix.Close(dfd)
			return -1, unix.EXDEV
		}
		flags := unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(parts)-1 {
			flags |= unix.O_PATH | unix.O_DIRECTORY
		} else {
			flags |= unix.O_RDONLY | unix.O_NONBLOCK
		}
		fd, err := unix.Openat(dfd, part, flags, 0)
		unix.Close(dfd)
		if err != nil {
			return -1, err
		}
		dfd = fd
	}
	return dfd, nil
}

// openError names why a document could not be opened; a missing file stays
// fs.ErrNotExist.
func openError(p string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
		return fmt.Errorf("%s: a symlink (or a file) is on the path (document reads follow no symlink): %w", p, err)
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s: the path leaves the documents folder: %w", p, err)
	}
	return &os.PathError{Op: "open", Path: p, Err: err}
}

func (r *dirRoot) close() error { return unix.Close(r.fd) }
