//go:build !linux

// This file is riseArena (clock_rises_file.go) where it maps nothing:
// histories are heap memory.

package predict

import "errors"

func (a *riseArena) mapMore(size int) ([]byte, error) {
	return nil, errors.New("predict: no file-backed histories on this system")
}

func dropPages(m []byte) {}

func (a *riseArena) free() {}
